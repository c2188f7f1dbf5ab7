package pipeline

// messageFlow numbers the messages of a table densely: what a compute hands
// to the next stage of its microbatch's route, an activation from F(s, m)
// to s+1 (direction dirF) or an input gradient from B or I(s, m) to s-1
// (dirB). Lower and its lockstep follow messages by number, in flat arrays.
type messageFlow struct {
	t      *Table
	stages int
	mbs    microbatchIndex
}

// The directions of a message.
const (
	dirF = 0 // an activation, from stage s to s+1
	dirB = 1 // an input gradient, from stage s to s-1
)

func newMessageFlow(t *Table) messageFlow {
	return messageFlow{t: t, stages: t.Stages(), mbs: indexMicrobatches(t)}
}

// messages returns how many message numbers there are.
func (f *messageFlow) messages() int { return 2 * f.stages * f.mbs.n }

// key numbers the message of stage s and microbatch m in direction dir,
// or returns -1 for a microbatch the table does not name.
func (f *messageFlow) key(dir, s, m int) int {
	mb, ok := f.mbs.of(m)
	if !ok {
		return -1
	}
	return (dir*f.stages+s)*f.mbs.n + mb
}

// input returns the message single action a waits for (inputsOf): for F
// the activation of the previous stage on its route, for I and B the
// input gradient of the next; -1 when a waits for none.
func (f *messageFlow) input(a *Action) int {
	switch a.Kind {
	case Forward:
		if prev, ok := f.t.PrevStage(a.Microbatch, a.Stage); ok {
			return f.key(dirF, prev, a.Microbatch)
		}
	case BackwardInput, Backward:
		if next, ok := f.t.NextStage(a.Microbatch, a.Stage); ok {
			return f.key(dirB, next, a.Microbatch)
		}
	}
	return -1
}

// output returns the message single action a makes (-1 for none) and,
// when it crosses ranks (commsOf), the rank it is sent to, else -1.
func (f *messageFlow) output(a *Action) (msg, peer int) {
	var dir, to int
	var on bool
	switch a.Kind {
	case Forward:
		dir = dirF
		to, on = f.t.NextStage(a.Microbatch, a.Stage)
	case BackwardInput, Backward:
		dir = dirB
		to, on = f.t.PrevStage(a.Microbatch, a.Stage)
	default:
		return -1, -1
	}
	msg = f.key(dir, a.Stage, a.Microbatch)
	if on && f.t.Placement[to] != f.t.Placement[a.Stage] {
		return msg, f.t.Placement[to]
	}
	return msg, -1
}

// singles returns the single actions a stands for, as subActions does,
// in an array: the forward and the backward of an OVERLAP_F_B, a itself
// otherwise, none for a bubble.
func singles(a Action) (subs [2]Action, n int) {
	switch a.Kind {
	case Bubble:
		return subs, 0
	case OverlapFB:
		return [2]Action{F(a.Stage, a.Microbatch), B(a.BackStage, a.BackMicrobatch)}, 2
	}
	return [2]Action{a}, 1
}
