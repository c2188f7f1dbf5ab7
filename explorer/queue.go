package explorer

import (
	"context"
	"net/http"
	"slices"
	"sync"
)

// queue bounds the commands that run at once to its slots; requests
// beyond wait in order of arrival, and one whose context ends while it
// waits leaves the queue. It replaces a single lock: a request waits only
// while every slot is taken, and never behind one whose client has gone
// (that command is cancelled, and frees its slot, with its context).
type queue struct {
	mu      sync.Mutex
	slots   int
	running int
	waiting []chan struct{} // first come, first served
}

func newQueue(slots int) *queue { return &queue{slots: slots} }

// acquire takes a slot, waiting for one while ctx lasts; queued, if not
// nil, is told the request's place in the queue (1: next) when it has to
// wait. Every nil error must be followed by one release.
func (q *queue) acquire(ctx context.Context, queued func(position int)) error {
	q.mu.Lock()
	if q.running < q.slots && len(q.waiting) == 0 {
		q.running++
		q.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	q.waiting = append(q.waiting, ready)
	position := len(q.waiting)
	q.mu.Unlock()
	if queued != nil {
		queued(position)
	}
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		if i := slices.Index(q.waiting, ready); i >= 0 {
			q.waiting = slices.Delete(q.waiting, i, i+1)
			q.mu.Unlock()
			return ctx.Err()
		}
		q.mu.Unlock()
		q.release() // the slot was handed over as ctx ended: pass it on
		return ctx.Err()
	}
}

// release frees a slot, handing it to the first request waiting.
func (q *queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		close(q.waiting[0])
		q.waiting = q.waiting[1:]
		return
	}
	q.running--
}

// QueueStatus is the answer of GET /api/queue: the slots, the commands
// running and the requests waiting for a slot.
type QueueStatus struct {
	Slots   int `json:"slots"`
	Running int `json:"running"`
	Waiting int `json:"waiting"`
}

func (q *queue) status() QueueStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	return QueueStatus{Slots: q.slots, Running: q.running, Waiting: len(q.waiting)}
}

func (s *Server) serveQueue(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, http.StatusOK, s.queue.status())
}
