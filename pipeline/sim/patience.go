package sim

import (
	"context"
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Patience says how long a free rank under the Ready policy waits for the
// action its row puts next before it runs another ready action instead.
type Patience uint8

const (
	// WaitAsPlanned, with the table hint, makes the table a timed plan: a
	// rank waits for its row's next action as long as the fixed order,
	// run without variability, waits for it (its planned gap), and only
	// then runs the best-ranked ready action. The plan's idle time is the
	// schedule designer's (a zero-bubble warm-up keeps memory down, a
	// Megatron interleaved rank alternates forwards and backwards), so it
	// is honoured; readiness takes over where reality falls behind the
	// plan. Without variability a run is therefore the fixed run, action
	// for action. The BF and BFW hints rank by kind and carry no plan, so
	// under them a rank never waits.
	WaitAsPlanned Patience = iota
	// NoWait makes a free rank run the best-ranked ready action at once,
	// as the RRFP runtime does: the table hint then reorders even where
	// nothing varies, wherever the fixed order idles while a later action
	// of the row could run.
	NoWait
)

var patienceNames = [...]string{WaitAsPlanned: "plan", NoWait: "none"}

func (p Patience) String() string { return enumName(patienceNames[:], p, "Patience") }

// ParsePatience reads a patience name: "plan" or "none".
func ParsePatience(s string) (Patience, error) {
	return parseEnum[Patience](patienceNames[:], s, "patience")
}

// waitsAsPlanned reports whether a run under opt follows the plan's gaps.
func waitsAsPlanned(opt Options) bool {
	return opt.Policy == Ready && opt.Hint == TableOrder && opt.Patience == WaitAsPlanned
}

// planTimes is when the plan starts a queued node, and when the compute
// before it in its row ends (0 for the first): the gap between them is how
// long the plan leaves the rank idle before the node.
type planTimes struct{ free, start float64 }

// makePlan times t's row order under the costs of opt's run without its
// variability, with transfers following the data as the Ready policy's
// do, and returns the plan's times of every node of a simulator built
// for t, indexed as its nodes (SEND and RECV nodes get zeros).
func makePlan(ctx context.Context, t *pipeline.Table, cost cost.Model) ([]planTimes, error) {
	p, err := build(t, cost, Options{Context: ctx}, 0, true)
	if err != nil {
		return nil, err
	}
	if err := p.drive(); err != nil {
		if ctx != nil && ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sim: the ready policy waits as the fixed order does (patience plan), and the fixed order cannot run: %w", err)
	}
	// The plan simulator files the same non-bubble actions in the same
	// order as any simulator of t, so node ids match.
	plan := make([]planTimes, len(p.nodes))
	for r := range p.ranks {
		free := 0.0
		for id := p.ranks[r].first; id < p.ranks[r].end; id++ {
			nd := &p.nodes[id]
			if nd.kind.IsComm() {
				continue
			}
			plan[id] = planTimes{free: free, start: p.times[id].start}
			free = p.times[id].end
		}
	}
	return plan, nil
}

// patient reports whether free rank r should keep waiting at time now for
// the next action of its row rather than start best (-1: nothing can
// start). The wait ends at the planned gap after the moment the rank first
// found that action not ready, which under no variability is exactly when
// the plan starts it; a wake-up is scheduled for then.
func (s *simulator) patient(r int, best int32, now float64) bool {
	rs := &s.ranks[r]
	next := s.nextInRow(rs)
	if next < 0 || next == best {
		return false
	}
	if queueOf(s.nodes[next].kind) == queueF && rs.held >= rs.cap {
		return false // the cap holds it back, whatever the plan says
	}
	if rs.waitFor != next {
		p := s.plan[next]
		rs.waitFor, rs.waitUntil = next, p.start+(now-p.free)
		if rs.waitUntil > now {
			s.queue.schedule(rs.waitUntil, evWake, int32(r))
		}
	}
	return now < rs.waitUntil
}

// nextInRow returns the first queued node of a rank's row not started yet,
// or -1.
func (s *simulator) nextInRow(rs *rankState) int32 {
	next := int32(-1)
	for q := queueF; q < numQueues; q++ {
		if id := s.head(rs, q); id >= 0 && (next < 0 || s.nodes[id].index < s.nodes[next].index) {
			next = id
		}
	}
	return next
}
