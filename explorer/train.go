package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	typed "github.com/pipelab/pipelab/request"
	"net/http"
	"sync"
)

// serveTrain runs a replay and streams it as server-sent events: "command"
// (the command line), "queued" (the place in the queue, while every slot
// is taken), one "record" per loss record as it is taken, then "report"
// (the library's report, as train --format json prints it) or "problem"
// (its error). The replay is the library's (Server.Commands' train), no
// command line. Closing the
// request (the page's Stop) cancels the replay at its next record.
//
// The replay never waits for the client: its records go to a list that a
// writer of its own sends, each write within WriteTimeout. A client that
// stops reading fails that write, which ends the replay (its slot is
// free to others from then on) and the stream.
func (s *Server) serveTrain(w http.ResponseWriter, r *http.Request) {
	cmd, ok := s.commandNamed("train")
	if !ok || cmd.Stream == nil {
		s.writeJSON(w, http.StatusNotImplemented, problem{Error: "this server runs no replays"})
		return
	}
	c, re := s.prepare(w, r, "train")
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	defer c.done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	st := newStream(s, w, cancel)
	st.send("command", map[string]string{"command": c.line})
	go st.write()
	defer st.close()
	if err := s.queue.acquire(ctx, func(p int) { st.send("queued", map[string]int{"position": p}) }); err != nil {
		return
	}
	var stderr bytes.Buffer
	rep, err := cmd.Stream(ctx, c.args[1:], func(p any) { st.send("record", p) }, &stderr)
	s.queue.release()
	switch {
	case ctx.Err() != nil:
		return // the page stopped the replay, or stopped reading it
	case err != nil:
		if msg := typed.Message(cmd.Name, err); msg != "" {
			stderr.WriteString(msg + "\n")
		}
		st.send("problem", problemOf(stderr.String(), c.dir, c.req))
		return
	}
	b, err := json.Marshal(rep)
	if err != nil {
		st.send("problem", problem{Error: err.Error()})
		return
	}
	st.send("report", json.RawMessage(stripDir(string(b), c.dir, c.req)))
}

// stream is the events of one replay on their way to the client: send
// adds one (never blocking on the network), write sends them in order.
type stream struct {
	s      *Server
	w      http.ResponseWriter
	cancel context.CancelFunc

	mu      sync.Mutex
	pending [][]byte
	wake    chan struct{} // a send or close happened
	closed  bool
	failed  bool
	done    chan struct{} // write has returned
}

func newStream(s *Server, w http.ResponseWriter, cancel context.CancelFunc) *stream {
	return &stream{s: s, w: w, cancel: cancel, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (st *stream) send(event string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(problem{Error: err.Error()})
		event = "problem"
	}
	st.mu.Lock()
	if !st.failed {
		st.pending = append(st.pending, fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, b))
	}
	st.mu.Unlock()
	st.poke()
}

func (st *stream) poke() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// close ends the stream once every event sent is written (or writing
// failed).
func (st *stream) close() {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	st.poke()
	<-st.done
}

// write sends the pending events until close, each batch within the write
// timeout; a failed write cancels the replay and drops what is left.
func (st *stream) write() {
	defer close(st.done)
	rc := http.NewResponseController(st.w)
	for range st.wake {
		st.mu.Lock()
		batch, closed := st.pending, st.closed
		st.pending = nil
		st.mu.Unlock()
		for _, ev := range batch {
			st.s.writeDeadline(st.w)
			if _, err := st.w.Write(ev); err != nil {
				st.fail()
				return
			}
		}
		if len(batch) > 0 {
			if err := rc.Flush(); err != nil {
				st.fail()
				return
			}
		}
		if closed {
			return
		}
	}
}

// fail cancels the replay after a write the client did not take; the
// events sent from then on are dropped.
func (st *stream) fail() {
	st.mu.Lock()
	st.failed, st.pending = true, nil
	st.mu.Unlock()
	st.cancel()
}
