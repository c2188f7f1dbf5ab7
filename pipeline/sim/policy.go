package sim

import (
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
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

func (p Policy) String() string { return enumName(policyNames[:], p, "Policy") }

// ParsePolicy reads a policy name: "fixed" or "ready".
func ParsePolicy(s string) (Policy, error) {
	return parseEnum[Policy](policyNames[:], s, "execution policy")
}

// enumName returns the name of v, one of the options of an enumeration
// named in names, or typ(v) when v is out of range.
func enumName[T ~uint8](names []string, v T, typ string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// parseEnum reads one of names; an error names what was asked for and
// lists the names known.
func parseEnum[T ~uint8](names []string, s, what string) (T, error) {
	for v, name := range names {
		if name == s {
			return T(v), nil
		}
	}
	return 0, fmt.Errorf("sim: unknown %s %q (known: %s)", what, s, strings.Join(names, ", "))
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

func (h Hint) String() string { return enumName(hintNames[:], h, "Hint") }

// ParseHint reads a hint name: "table", "bf" or "bfw".
func ParseHint(s string) (Hint, error) { return parseEnum[Hint](hintNames[:], s, "readiness hint") }

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
