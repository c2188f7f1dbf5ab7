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
	// a cap on the activations it holds. With the table hint a rank first
	// waits for its row's next action as long as the fixed order would
	// (Options.Patience, WaitAsPlanned), so that without variability Ready
	// runs a table exactly as Fixed does.
	//
	// Forwards keep their row order among themselves, and so do backwards
	// (B and I) and weight gradients (W); UNSHARD, RESHARD, REDUCE_GRAD and
	// OVERLAP_F_B stay where the row puts them, after everything before and
	// before everything after. With a cap of at least the fixed order's
	// peak this cannot deadlock where the fixed order does not: the first
	// action of the fixed run that a stuck ready run has not done has its
	// inputs, heads its kind's queue and, being a forward, finds the rank
	// below the cap, since the ready run has freed at least what the fixed
	// run had freed by then. Waiting as planned only delays that moment:
	// every wait ends.
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
