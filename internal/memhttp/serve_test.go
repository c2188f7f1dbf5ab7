package memhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/pipelab/pipelab/explorer"
)

// recorder is a Sink that keeps what it is given.
type recorder struct {
	status int
	header http.Header
	chunks []string
	starts int
}

func (r *recorder) Start(status int, h http.Header) { r.status, r.header = status, h; r.starts++ }
func (r *recorder) Chunk(p []byte)                  { r.chunks = append(r.chunks, string(p)) }

// A stream flushed three times arrives as three chunks, in order, after
// one Start.
func TestServeStreamsOneChunkPerFlush(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			http.NewResponseController(w).Flush()
		}
	})
	var rec recorder
	Serve(context.Background(), h, "POST", "/api/train/stream", []byte("{}"), &rec)
	if rec.starts != 1 || rec.status != 200 || rec.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("started %d times, status %d, header %v", rec.starts, rec.status, rec.header)
	}
	want := []string{"data: 0\n\n", "data: 1\n\n", "data: 2\n\n"}
	if fmt.Sprint(rec.chunks) != fmt.Sprint(want) {
		t.Fatalf("chunks %q, want %q", rec.chunks, want)
	}
}

// The request reaches the handler as the page's own would: its method,
// path, body and JSON content type, from a loopback peer to a loopback
// host, with the caller's context.
func TestServeRequest(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "mine")
	var got []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = []string{r.Method, r.URL.Path, string(b), r.Header.Get("Content-Type"), r.Host, r.RemoteAddr, fmt.Sprint(r.Context().Value(key{}))}
		w.WriteHeader(http.StatusUnprocessableEntity)
	})
	var rec recorder
	Serve(ctx, h, "POST", "/api/simulate", []byte(`{"flags":{}}`), &rec)
	want := []string{"POST", "/api/simulate", `{"flags":{}}`, "application/json", "localhost", "127.0.0.1:0", "mine"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("handler saw %q, want %q", got, want)
	}
	if rec.status != http.StatusUnprocessableEntity || len(rec.chunks) != 0 {
		t.Fatalf("status %d, chunks %q", rec.status, rec.chunks)
	}
}

// The explorer's handler, guard included, answers through Serve: its
// queue has the slots it was given.
func TestServeExplorerQueue(t *testing.T) {
	s := &explorer.Server{Slots: 1}
	var rec recorder
	Serve(context.Background(), s.Handler(), "GET", "/api/queue", nil, &rec)
	var q explorer.QueueStatus
	if len(rec.chunks) != 1 {
		t.Fatalf("status %d, chunks %q", rec.status, rec.chunks)
	}
	if err := json.Unmarshal([]byte(rec.chunks[0]), &q); err != nil || rec.status != 200 || q != (explorer.QueueStatus{Slots: 1}) {
		t.Fatalf("status %d, %q: %+v %v", rec.status, rec.chunks[0], q, err)
	}
}

// A path no request can have is a 400, not a panic.
func TestServeBadPath(t *testing.T) {
	var rec recorder
	Serve(context.Background(), http.NotFoundHandler(), "GET", "/%zz", nil, &rec)
	if rec.status != http.StatusBadRequest {
		t.Fatalf("status %d", rec.status)
	}
}
