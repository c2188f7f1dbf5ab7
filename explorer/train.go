package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// Train runs a "pipelab train" command line (args[0] is "train") as the
// command does, calling record with each loss record as the replay takes it
// (the points of the report's curve, in the report's JSON form), and
// stops when ctx ends. It returns the exit status, as Server.Run.
type Train func(ctx context.Context, args []string, record func(point any), stdout, stderr io.Writer) int

// serveTrain runs a replay and streams it as server-sent events: "command"
// (the command line), one "record" per loss record as it is taken, then
// "report" (the command's JSON report) or "problem" (its error). Closing
// the request (the page's Stop) cancels the replay at its next record.
func (s *Server) serveTrain(w http.ResponseWriter, r *http.Request) {
	req, err := decodeRequest(w, r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, problem{Error: err.Error()})
		return
	}
	if s.Train == nil {
		writeJSON(w, http.StatusNotImplemented, problem{Error: "this server runs no replays"})
		return
	}
	dir, err := os.MkdirTemp("", "pipelab-serve-")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	defer os.RemoveAll(dir)
	args, err := req.args("train", dir)
	if err != nil {
		if pe, ok := err.(problemError); ok {
			writeJSON(w, http.StatusBadRequest, pe.p)
			return
		}
		writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	line := commandLine(args, dir)
	args = append(args, "--format=json")
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex // record is called from the replay's goroutine
	send := func(event string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			b, _ = json.Marshal(problem{Error: err.Error()})
			event = "problem"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("command", map[string]string{"command": line})
	var stdout, stderr bytes.Buffer
	s.mu.Lock()
	code := s.Train(r.Context(), args, func(p any) { send("record", p) }, &stdout, &stderr)
	s.mu.Unlock()
	switch {
	case r.Context().Err() != nil:
		return // the page stopped the replay and is no longer listening
	case code != 0:
		send("problem", problemOf(stderr.String(), dir, req))
	default:
		send("report", json.RawMessage(stripDir(string(bytes.TrimSpace(stdout.Bytes())), dir)))
	}
}
