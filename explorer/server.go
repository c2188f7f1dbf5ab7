package explorer

import (
	"embed"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
)

//go:embed assets
var assets embed.FS

// Server serves the page and its API.
type Server struct {
	// Run runs one pipelab command line (args[0] is the command) as the
	// binary would, writing its output and its errors, and returns the
	// exit status (0 ok, 2 bad input, 1 failure).
	Run func(args []string, stdout, stderr io.Writer) int
	// Train runs a replay, streaming its loss records; nil refuses
	// replays.
	Train Train

	// mu serialises the commands: they share the process's memory limit,
	// and the size guards assume one command at a time.
	mu sync.Mutex
}

// Handler returns the page and the API. Requests whose Host is not a
// loopback name are refused, so that a web page elsewhere cannot reach the
// API through a name that resolves to 127.0.0.1 (DNS rebinding).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /", http.FileServerFS(static))
	mux.HandleFunc("POST /api/{command}", s.serveCommand)
	mux.HandleFunc("POST /api/download/{what}", s.serveDownload)
	mux.HandleFunc("POST /api/train/stream", s.serveTrain)
	return loopbackOnly(mux)
}

func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, "pipelab serve answers on a loopback address only (127.0.0.1, ::1 or localhost)", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
