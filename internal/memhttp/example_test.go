package memhttp_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/pipelab/pipelab/internal/memhttp"
)

type printer struct{}

func (printer) Start(status int, h http.Header) { fmt.Println(status, h.Get("Content-Type")) }
func (printer) Chunk(p []byte)                  { fmt.Printf("%q\n", p) }

func ExampleServe() {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.Path)
	})
	memhttp.Serve(context.Background(), h, "GET", "/api/queue", nil, printer{})
	// Output:
	// 200 text/plain
	// "GET /api/queue"
}
