package sim

import (
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
)

// Wait is one rank that cannot move in a deadlocked simulation.
type Wait struct {
	// Rank is the waiting rank, Action the action it waits to run and Index
	// that action's position in the rank's row.
	Rank   int
	Index  int
	Action pipeline.Action
	// WaitsFor is the action whose result it needs, and On the rank that
	// must run it (-1 when no rank of the table runs it).
	WaitsFor pipeline.Action
	On       int
	// AtCap is set under the Ready policy when the rank holds its
	// activation cap and the forward it needs (WaitsFor, or Action itself
	// when WaitsFor is a bubble) may not start.
	AtCap bool
}

func (w Wait) String() string {
	at := fmt.Sprintf("rank %d at position %d (%s)", w.Rank, w.Index, w.Action)
	switch {
	case w.AtCap && w.WaitsFor.IsBubble():
		return at + " holds its activation cap and may start no forward"
	case w.AtCap:
		return fmt.Sprintf("%s waits for %s on rank %d, which the activation cap holds back", at, w.WaitsFor, w.On)
	case w.On < 0:
		return fmt.Sprintf("%s waits for %s, which no rank runs", at, w.WaitsFor)
	}
	return fmt.Sprintf("%s waits for %s on rank %d", at, w.WaitsFor, w.On)
}

// DeadlockError reports ranks that wait on each other forever. It wraps
// pipeline.ErrDeadlock.
type DeadlockError struct {
	// Time is when the last action ended.
	Time float64
	// Waits lists the cycle of ranks, each waiting on the next and the
	// last on the first, when there is one; otherwise every waiting rank.
	Waits []Wait
	// Cycle says whether Waits is a cycle.
	Cycle bool
}

func (e *DeadlockError) Error() string {
	parts := make([]string, len(e.Waits))
	for i, w := range e.Waits {
		parts[i] = w.String()
	}
	what := "ranks wait for actions that never run"
	if e.Cycle {
		what = "a cycle of ranks waits on each other"
	}
	return fmt.Sprintf("sim: deadlock at time %v, %s: %s", e.Time, what, strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, pipeline.ErrDeadlock) true.
func (e *DeadlockError) Unwrap() error { return pipeline.ErrDeadlock }

// stuck reports whether the event queue ran dry with work left: a compute
// that never ran, or, when the table's SEND and RECV are timed as written,
// one of those that was never reached.
func (s *simulator) stuck() bool {
	if s.computes > 0 {
		return true
	}
	if !s.explicit {
		return false
	}
	for r := range s.ranks {
		if s.ranks[r].pos < s.ranks[r].end {
			return true
		}
	}
	return false
}

// deadlock describes why ranks still have work when no event is left: the
// first cycle of waits found from the blocked ranks in rank order, else
// every blocked rank's wait.
func (s *simulator) deadlock(now float64) error {
	waits := make([]Wait, len(s.ranks))
	blocked := make([]bool, len(s.ranks))
	for r := range s.ranks {
		waits[r], blocked[r] = s.waitOf(r)
	}
	e := &DeadlockError{Time: now}
	for r := range s.ranks {
		if !blocked[r] {
			continue
		}
		if e.Waits = cycleFrom(r, waits, blocked); e.Waits != nil {
			e.Cycle = true
			return e
		}
	}
	for r := range s.ranks {
		if blocked[r] {
			e.Waits = append(e.Waits, waits[r])
		}
	}
	return e
}

// cycleFrom follows the waits from rank start and returns the cycle it
// runs into, starting where the walk enters it, or nil when the walk ends
// at a rank that waits on no rank.
func cycleFrom(start int, waits []Wait, blocked []bool) []Wait {
	seen := make([]bool, len(waits))
	r := start
	for !seen[r] {
		seen[r] = true
		if !blocked[r] || waits[r].On < 0 {
			return nil
		}
		r = waits[r].On
	}
	var cycle []Wait
	for c := r; ; {
		cycle = append(cycle, waits[c])
		if c = waits[c].On; c == r {
			return cycle
		}
	}
}

// waitOf says what rank r waits for, if it has work left.
func (s *simulator) waitOf(r int) (Wait, bool) {
	rs := &s.ranks[r]
	if s.opt.Policy == Ready {
		return s.readyWait(r)
	}
	if rs.pos >= rs.end {
		return Wait{}, false
	}
	return s.waitAt(r, rs.pos), true
}

// readyWait says what rank r waits for under the Ready policy: what the
// best-ranked head of its queues waits for, or, when the only head with
// its inputs is a forward, the activation cap.
func (s *simulator) readyWait(r int) (Wait, bool) {
	rs := &s.ranks[r]
	best, bestQ := int32(-1), queue(0)
	atCap := int32(-1)
	for q := queueF; q < numQueues; q++ {
		id := s.head(rs, q)
		if id < 0 {
			continue
		}
		if q == queueF && rs.held >= rs.cap && s.inputsReady(r, s.act(id)) {
			atCap = id
			continue
		}
		if best < 0 || s.better(q, id, bestQ, best) {
			best, bestQ = id, q
		}
	}
	switch {
	case best >= 0:
		w := s.waitAt(r, best)
		if rs.held >= rs.cap && w.On == r && w.WaitsFor.Kind == pipeline.Forward {
			w.AtCap = true
		}
		return w, true
	case atCap >= 0:
		nd := &s.nodes[atCap]
		return Wait{Rank: r, Index: int(nd.index), Action: s.act(atCap), On: -1, AtCap: true}, true
	}
	return Wait{}, false
}

// waitAt describes what node id on rank r waits for.
func (s *simulator) waitAt(r int, id int32) Wait {
	a := s.act(id)
	w := Wait{Rank: r, Index: int(s.nodes[id].index), Action: a, On: r}
	if a.Kind == pipeline.SendF || a.Kind == pipeline.SendB {
		w.WaitsFor = pipeline.F(a.Stage, a.Microbatch)
		if a.Kind == pipeline.SendB {
			w.WaitsFor = s.backwardOf(a.Stage, a.Microbatch)
		}
		w.On = s.runner(w.WaitsFor)
		return w
	}
	for _, sub := range singleActions(a) {
		producer, missing := s.missingInput(r, sub)
		if !missing {
			continue
		}
		if producer.Kind == pipeline.Backward {
			producer = s.backwardOf(producer.Stage, producer.Microbatch)
		}
		w.WaitsFor, w.On = producer, s.runner(producer)
		if w.On != r && s.produced(producer) {
			// Computed on another rank and not arrived: an explicit SEND
			// or RECV was never posted.
			w.WaitsFor, w.On = s.unpostedEnd(producer)
		}
		return w
	}
	return w
}

// unpostedEnd names the end of producer's transfer that was never posted
// (the SEND first) and the rank that runs it, -1 when the table has none.
func (s *simulator) unpostedEnd(producer pipeline.Action) (pipeline.Action, int) {
	dir, _ := messageDir(producer.Kind)
	xf := &s.xfers[s.xferOf[s.msgKey(dir, producer.Stage, producer.Microbatch)]-1]
	wantSend := !xf.sendPosted
	end := xf.recvNode
	if wantSend {
		end = xf.sendNode
	}
	if end < 0 {
		return xf.commAction(wantSend), -1
	}
	return s.act(end), int(s.nodes[end].rank)
}

// runner returns the rank that runs compute action a (F, B or I), or -1
// when no rank of the table runs it. Validate makes a table run every
// microbatch's F, and its B or I, on exactly the stages of its route.
func (s *simulator) runner(a pipeline.Action) int {
	if rt := s.t.RouteOf(a.Microbatch); a.Stage < rt.First || a.Stage > rt.Last {
		return -1
	}
	return s.t.Placement[a.Stage]
}

// backwardOf names the backward of (st, m) as the table writes it: B, or
// I when the table splits it.
func (s *simulator) backwardOf(st, m int) pipeline.Action {
	rs := &s.ranks[s.t.Placement[st]]
	for id := rs.first; id < rs.end; id++ {
		if k := s.nodes[id].kind; k != pipeline.Backward && k != pipeline.BackwardInput {
			continue
		}
		if a := s.act(id); a.Stage == st && a.Microbatch == m {
			return a
		}
	}
	return pipeline.B(st, m)
}
