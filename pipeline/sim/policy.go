package sim

import (
	"fmt"

	"pipelab/pipeline"
)

// Policy is the order in which a rank runs the actions of its row.
type Policy uint8

const (
	// Fixed runs every row in its order: a rank waits for the next action
	// of its row even when a later one could run.
	Fixed Policy = iota
	// Ready lets a rank run, whenever its compute stream is free, the
	// best-ranked of its actions that can run now (by Options.Hint), under
	// a cap on the activations it holds.
	//
	// Forwards keep their row order among themselves, and so do backwards
	// (B and I) and weight gradients (W); UNSHARD, RESHARD, REDUCE_GRAD and
	// OVERLAP_F_B stay where the row puts them, after everything before and
	// before everything after. With a cap of at least the fixed order's
	// peak this cannot deadlock where the fixed order does not: the first
	// action of the fixed run that a stuck ready run has not done has its
	// inputs, heads its kind's queue and, being a forward, finds the rank
	// below the cap, since the ready run has freed at least what the fixed
	// run had freed by then.
	Ready
)

var policyNames = [...]string{Fixed: "fixed", Ready: "ready"}

func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy reads a policy name: "fixed" or "ready".
func ParsePolicy(s string) (Policy, error) {
	for p, name := range policyNames {
		if name == s {
			return Policy(p), nil
		}
	}
	return Fixed, fmt.Errorf("sim: unknown execution policy %q (known: fixed, ready)", s)
}

// Hint ranks the ready actions of a rank under the Ready policy; ties go to
// the action earlier in the row.
type Hint uint8

const (
	// TableOrder prefers the action earliest in the row.
	TableOrder Hint = iota
	// BackwardFirst prefers backwards (B, I and W) to forwards.
	BackwardFirst
	// InputForwardWeight prefers input gradients (I, and full B) to
	// forwards, and forwards to weight gradients (W), as zero-bubble
	// schedules do.
	InputForwardWeight
)

var hintNames = [...]string{TableOrder: "table", BackwardFirst: "bf", InputForwardWeight: "bfw"}

func (h Hint) String() string {
	if int(h) < len(hintNames) {
		return hintNames[h]
	}
	return fmt.Sprintf("Hint(%d)", uint8(h))
}

// ParseHint reads a hint name: "table", "bf" or "bfw".
func ParseHint(s string) (Hint, error) {
	for h, name := range hintNames {
		if name == s {
			return Hint(h), nil
		}
	}
	return TableOrder, fmt.Errorf("sim: unknown readiness hint %q (known: table, bf, bfw)", s)
}

// queue is the class of a compute action under the Ready policy: actions of
// one class keep their row order.
type queue uint8

const (
	queueF       queue = iota // F
	queueB                    // B and I
	queueW                    // W
	queueInPlace              // everything that keeps its row position
	numQueues
)

func queueOf(k pipeline.Kind) queue {
	switch k {
	case pipeline.Forward:
		return queueF
	case pipeline.Backward, pipeline.BackwardInput:
		return queueB
	case pipeline.BackwardWeight:
		return queueW
	}
	return queueInPlace
}

// rank orders the queues under a hint: lower runs first.
func (h Hint) rank(q queue) int {
	switch h {
	case BackwardFirst:
		if q == queueF {
			return 1
		}
	case InputForwardWeight:
		switch q {
		case queueF:
			return 1
		case queueW:
			return 2
		}
	}
	return 0
}

// activationRule says which action frees the activation a forward keeps:
// the W of the same stage and microbatch when the table splits that
// backward, the B or I otherwise.
type activationRule struct {
	microbatches int
	split        []bool // split[s*microbatches+m]: the table has W(s, m)
}

func newActivationRule(t *pipeline.Table) activationRule {
	ar := activationRule{microbatches: max(t.Microbatches, 1)}
	ar.split = make([]bool, t.Stages()*ar.microbatches)
	for _, row := range t.Rows {
		for _, a := range row {
			if a.Kind == pipeline.BackwardWeight && ar.valid(a.Stage, a.Microbatch, t.Stages()) {
				ar.split[a.Stage*ar.microbatches+a.Microbatch] = true
			}
		}
	}
	return ar
}

func (ar activationRule) valid(s, m, stages int) bool {
	return s >= 0 && s < stages && m >= 0 && m < ar.microbatches
}

// delta is the change in activations held on a rank when a ends: +1 for a
// forward, -1 for the action that frees one, 0 otherwise.
func (ar activationRule) delta(a pipeline.Action) int {
	switch a.Kind {
	case pipeline.Forward:
		return 1
	case pipeline.Backward, pipeline.BackwardWeight:
		return -1
	case pipeline.BackwardInput:
		if k := a.Stage*ar.microbatches + a.Microbatch; k >= 0 && k < len(ar.split) && ar.split[k] {
			return 0
		}
		return -1
	}
	return 0 // OVERLAP_F_B keeps one and frees one
}

// FixedPeakActivations returns, per rank, the most activations the rank
// holds when it runs its row in order. It depends on the order alone, so it
// is also what Simulate measures under the Fixed policy, and it is the
// Ready policy's default cap.
func FixedPeakActivations(t *pipeline.Table) []int {
	ar := newActivationRule(t)
	peaks := make([]int, t.Ranks())
	for r, row := range t.Rows {
		held := 0
		for _, a := range row {
			held += ar.delta(a)
			peaks[r] = max(peaks[r], held)
		}
	}
	return peaks
}

// dispatchReady starts on rank r, if its stream is free, the best-ranked
// action that can run now.
func (s *simulator) dispatchReady(r int, now float64) {
	rs := &s.ranks[r]
	if rs.busy {
		return
	}
	inPlace := s.head(rs, queueInPlace)
	best, bestQ := int32(-1), queue(0)
	for q := queueF; q < queueInPlace; q++ {
		id := s.head(rs, q)
		if id < 0 || (inPlace >= 0 && s.nodes[id].index > s.nodes[inPlace].index) {
			continue
		}
		if q == queueF && rs.held >= rs.cap {
			continue
		}
		if !s.inputsReady(r, s.nodes[id].act) {
			continue
		}
		if best < 0 || s.better(q, id, bestQ, best) {
			best, bestQ = id, q
		}
	}
	if best < 0 && inPlace >= 0 && s.allBefore(rs, s.nodes[inPlace].index) && s.inputsReady(r, s.nodes[inPlace].act) {
		best, bestQ = inPlace, queueInPlace
	}
	if best >= 0 {
		rs.heads[bestQ]++
		s.start(best, now)
	}
}

// head returns the next node of queue q on a rank, or -1.
func (s *simulator) head(rs *rankState, q queue) int32 {
	if rs.heads[q] < len(rs.queues[q]) {
		return rs.queues[q][rs.heads[q]]
	}
	return -1
}

// better reports whether node a of queue qa outranks node b of queue qb.
func (s *simulator) better(qa queue, a int32, qb queue, b int32) bool {
	ra, rb := s.opt.Hint.rank(qa), s.opt.Hint.rank(qb)
	if ra != rb {
		return ra < rb
	}
	return s.nodes[a].index < s.nodes[b].index
}

// allBefore reports whether every queued action of a rank before position
// index has started (the stream being free, it has also finished).
func (s *simulator) allBefore(rs *rankState, index int) bool {
	for q := queueF; q < queueInPlace; q++ {
		if id := s.head(rs, q); id >= 0 && s.nodes[id].index < index {
			return false
		}
	}
	return true
}
