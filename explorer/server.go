package explorer

import (
	"cmp"
	"embed"
	typed "github.com/pipelab/pipelab/request"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

//go:embed assets
var assets embed.FS

// Server serves the page and its API.
type Server struct {
	// Commands are commands beyond the library's own (request.CommandNamed),
	// run as those are: train (request/train.Command), which needs Arrow
	// and so is handed in by a main package that links it. The server
	// runs no command line.
	Commands []typed.Command
	// Slots is how many commands run at once, the others waiting in
	// order of arrival; 0 means one per core (runtime.GOMAXPROCS).
	Slots int
	// Remote, set when the server listens on an address other hosts can
	// reach, accepts requests from them; otherwise both the Host a
	// request names and the peer it comes from must be loopback.
	Remote bool
	// ReadTimeout bounds the time from a request's start to the end of
	// its body (a slow body is dropped; the handler lifts the deadline
	// once the body is read, so that a long command is not cut short),
	// WriteTimeout each write to a client (an answer, one event of a
	// stream: a client that reads nothing for that long is dropped and
	// its command cancelled), and IdleTimeout a kept-alive connection
	// with no request. 0 means the Default of each.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration

	once  sync.Once
	queue *queue
	// decoding bounds the request bodies decoded at once (two per slot):
	// a body costs up to about five times its bytes while it is decoded.
	decoding chan struct{}
}

// The defaults of Server's timeouts, the time a request's headers may take
// (ReadHeaderTimeout), and the most connections open at once (MaxConns:
// more wait to be accepted; see LimitListener).
const (
	DefaultReadTimeout  = 60 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	ReadHeaderTimeout   = 10 * time.Second
	MaxConns            = 256
)

func (s *Server) init() {
	s.once.Do(func() {
		n := s.Slots
		if n <= 0 {
			n = runtime.GOMAXPROCS(0)
		}
		s.queue = newQueue(n)
		s.decoding = make(chan struct{}, 2*n)
		s.ReadTimeout = cmp.Or(s.ReadTimeout, DefaultReadTimeout)
		s.WriteTimeout = cmp.Or(s.WriteTimeout, DefaultWriteTimeout)
		s.IdleTimeout = cmp.Or(s.IdleTimeout, DefaultIdleTimeout)
	})
}

// Handler returns the page and the API, behind the guard (guard.go).
func (s *Server) Handler() http.Handler {
	s.init()
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.Handle("GET /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeDeadline(w)
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET /api/queue", s.serveQueue)
	mux.HandleFunc("POST /api/{command}", s.serveCommand)
	mux.HandleFunc("POST /api/download/{what}", s.serveDownload)
	mux.HandleFunc("POST /api/train/stream", s.serveTrain)
	return s.guard(mux)
}

// HTTPServer returns the HTTP server of the page with the server's
// timeouts. Serve it on a listener from LimitListener.
func (s *Server) HTTPServer() *http.Server {
	h := s.Handler()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(ReadHeaderTimeout, s.ReadTimeout),
		ReadTimeout:       s.ReadTimeout,
		IdleTimeout:       s.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// writeDeadline gives the next writes to w WriteTimeout to complete.
func (s *Server) writeDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.WriteTimeout))
}

// LimitListener accepts at most n connections at once from ln: once n
// are open, Accept waits for one to close.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n)}
}

type limitListener struct {
	net.Listener
	sem chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
