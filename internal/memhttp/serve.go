package memhttp

import (
	"bytes"
	"context"
	"net/http"
	"sync"
)

// Loopback is the peer and the Host of every request: the page and the
// handler share one process, as a page and "pipelab serve" on 127.0.0.1
// share one machine.
const (
	LoopbackHost = "localhost"
	LoopbackPeer = "127.0.0.1:0"
)

// Sink receives an answer: Start once, with the status and the headers,
// before the first Chunk; then the body in order, one Chunk per flush.
type Sink interface {
	Start(status int, header http.Header)
	Chunk(p []byte)
}

// Serve serves one request with h and returns once h has returned. path
// is the request's path and query ("/api/simulate"); a JSON body is sent
// as application/json. ctx is the request's context: ending it asks the
// handler to stop. Serve writes a 400 to the sink when the method or the
// path is not one a request can have.
func Serve(ctx context.Context, h http.Handler, method, path string, body []byte, sink Sink) {
	w := &writer{sink: sink, header: http.Header{}}
	r, err := http.NewRequestWithContext(ctx, method, "http://"+LoopbackHost+path, bytes.NewReader(body))
	if err != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("memhttp: " + err.Error()))
		w.finish()
		return
	}
	r.RemoteAddr = LoopbackPeer
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	h.ServeHTTP(w, r)
	w.finish()
}

// writer is the handler's http.ResponseWriter: it holds the body written
// since the last flush and hands it to the sink on Flush and at the end.
type writer struct {
	mu      sync.Mutex
	sink    Sink
	header  http.Header
	started bool
	buf     bytes.Buffer
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start(status)
}

// start sends the status and the headers once; w.mu is held.
func (w *writer) start(status int) {
	if w.started {
		return
	}
	w.started = true
	w.sink.Start(status, w.header.Clone())
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start(http.StatusOK)
	return w.buf.Write(p)
}

// Flush sends the body written since the last flush as one chunk.
func (w *writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start(http.StatusOK)
	if w.buf.Len() > 0 {
		w.sink.Chunk(bytes.Clone(w.buf.Bytes()))
		w.buf.Reset()
	}
}

// finish ends the answer: a handler that wrote nothing answered 200 with
// no body, as net/http's server says.
func (w *writer) finish() { w.Flush() }
