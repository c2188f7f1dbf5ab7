package sweep

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/pipelab/pipelab/experiments"
)

// Pool shares a fixed number of slots, one run at a time each, among the
// runs of several sweeps that run side by side (reproduce's figures), so
// that the slots stay busy until the last run of the last sweep rather
// than each sweep's last runs leaving slots idle. A free slot goes to the
// most urgent request waiting: work after a sweep's runs (Do: its plots,
// the sweep's serial tail) first, then the run of the longest estimated
// CPU time (experiments.EstimatedSeconds), so that the long runs start first and the
// short ones fill the slots at the end (longest processing time first),
// ties to the lower rank, then the lower run index. Which slot computes a
// run never changes what it computes: outputs are those of the sweeps run
// one after another.
type Pool struct {
	mu      sync.Mutex
	free    int
	waiting []*poolRequest
}

// poolRequest is a request waiting for a slot: a goroutine parked on
// granted (acquire), or a task that the pool starts on a goroutine of its
// own when the slot is its (Go), so that nothing waits for it meanwhile.
type poolRequest struct {
	urgency
	granted chan struct{}
	task    func()
}

// urgency orders a pool's requests: a longer estimate first, then a lower
// rank, then a lower index.
type urgency struct {
	seconds     float64
	rank, index int
}

// before reports whether u is more urgent than v.
func (u urgency) before(v urgency) bool {
	return cmp.Or(cmp.Compare(v.seconds, u.seconds), cmp.Compare(u.rank, v.rank), cmp.Compare(u.index, v.index)) < 0
}

// NewPool returns a pool of jobs slots (at least one).
func NewPool(jobs int) *Pool { return &Pool{free: max(jobs, 1)} }

// Go queues task, run r of the sweep ranked rank, for a slot of the
// pool, ranked by the run's estimated seconds, then rank, then the run's index,
// and returns at once: when
// the slot is the task's, the pool starts it on a goroutine of its own and
// frees the slot when it returns. A sweep queues all its runs this way
// (Runner.Pool) without a goroutine parked for each: with thousands of
// runs waiting, their stacks were tens of megabytes.
func (p *Pool) Go(rank int, r experiments.Run, task func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = append(p.waiting, &poolRequest{urgency: urgency{experiments.EstimatedSeconds(r), rank, r.Index}, task: task})
	p.grant()
}

// Do runs f in a slot of the pool before any waiting run (for a sweep's
// work after its runs, such as its plots, which nothing else can
// overlap once the runs are done), lower ranks first.
func (p *Pool) Do(ctx context.Context, rank int, f func() error) error {
	if err := p.acquire(ctx, urgency{math.Inf(1), rank, 0}); err != nil {
		return err
	}
	defer p.release()
	return f()
}

// acquire waits for a slot: at once when one is free and no request
// waits, else when release hands it this request's turn.
func (p *Pool) acquire(ctx context.Context, u urgency) error {
	p.mu.Lock()
	if p.free > 0 && len(p.waiting) == 0 {
		p.free--
		p.mu.Unlock()
		return nil
	}
	req := &poolRequest{urgency: u, granted: make(chan struct{})}
	p.waiting = append(p.waiting, req)
	p.grant()
	p.mu.Unlock()
	select {
	case <-req.granted:
		return nil
	case <-ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		if i := slices.Index(p.waiting, req); i >= 0 {
			p.waiting = slices.Delete(p.waiting, i, i+1)
			return ctx.Err()
		}
		// Granted while giving up: hand the slot back.
		p.free++
		p.grant()
		return ctx.Err()
	}
}

// release frees a slot for the most urgent waiting request.
func (p *Pool) release() {
	p.mu.Lock()
	p.free++
	p.grant()
	p.mu.Unlock()
}

// grant hands free slots to the most urgent waiting requests; p.mu is
// held. A scan finds the most urgent: a reproduce has at most a few
// thousand requests waiting, and each run costs far more than the scan.
func (p *Pool) grant() {
	for p.free > 0 && len(p.waiting) > 0 {
		best := 0
		for i, r := range p.waiting {
			if r.before(p.waiting[best].urgency) {
				best = i
			}
		}
		req := p.waiting[best]
		p.waiting = slices.Delete(p.waiting, best, best+1)
		p.free--
		if req.task != nil {
			go func() {
				defer p.release()
				req.task()
			}()
			continue
		}
		close(req.granted)
	}
}
