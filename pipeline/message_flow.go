package pipeline

// messageFlow numbers the messages of a table densely: what a compute hands
// to the next stage of its microbatch's route, an activation from F(s, m)
// to s+1 (direction dirF) or an input gradient from B or I(s, m) to s-1
// (dirB). Lower and its lockstep follow messages by number, in flat arrays.
type messageFlow struct {
	t      *Table
	stages int
	mbs    microbatchIndex
	// first and last are the first and last stage of each microbatch's
	// route, by the microbatch's number; nil when every route is every
	// stage. A microbatch the table's routes do not know has an empty
	// route (first > last), so it has no next or previous stage.
	first, last []int32
}

// The directions of a message.
const (
	dirF = 0 // an activation, from stage s to s+1
	dirB = 1 // an input gradient, from stage s to s-1
)

func newMessageFlow(t *Table) messageFlow {
	f := messageFlow{t: t, stages: t.Stages(), mbs: indexMicrobatches(t)}
	if t.Routes == nil {
		return f
	}
	f.first, f.last = make([]int32, f.mbs.n), make([]int32, f.mbs.n)
	span := func(m int) {
		i, _ := f.mbs.of(m)
		f.first[i], f.last[i] = 1, 0
		if rt, ok := t.routeOf(m); ok {
			f.first[i], f.last[i] = int32(rt.First), int32(rt.Last)
		}
	}
	if f.mbs.sparse != nil {
		for m := range f.mbs.sparse {
			span(m)
		}
	} else {
		for i := range f.mbs.n {
			span(f.mbs.lo + i)
		}
	}
	return f
}

// messages returns how many message numbers there are.
func (f *messageFlow) messages() int { return 2 * f.stages * f.mbs.n }

// route returns the first and last stage of the route of the microbatch
// numbered mb (NextStage and PrevStage's Route).
func (f *messageFlow) route(mb int) (first, last int) {
	if f.first == nil {
		return 0, f.stages - 1
	}
	return int(f.first[mb]), int(f.last[mb])
}

// input returns the message single action a waits for (inputsOf): for F
// the activation of the previous stage on its route, for I and B the
// input gradient of the next; -1 when a waits for none.
func (f *messageFlow) input(a *Action) int {
	mb, ok := f.mbs.of(a.Microbatch)
	if !ok {
		return -1
	}
	first, last := f.route(mb)
	switch s := a.Stage; a.Kind {
	case Forward:
		if s > first && s <= last {
			return (dirF*f.stages+s-1)*f.mbs.n + mb
		}
	case BackwardInput, Backward:
		if s >= first && s < last {
			return (dirB*f.stages+s+1)*f.mbs.n + mb
		}
	}
	return -1
}

// output returns the message single action a makes (-1 for none) and,
// when it crosses ranks (commsOf), the rank it is sent to, else -1.
func (f *messageFlow) output(a *Action) (msg, peer int) {
	mb, known := f.mbs.of(a.Microbatch)
	first, last := 0, -1
	if known {
		first, last = f.route(mb)
	}
	s := a.Stage
	var dir, to int
	var on bool
	switch a.Kind {
	case Forward:
		dir, to, on = dirF, s+1, s >= first && s < last
	case BackwardInput, Backward:
		dir, to, on = dirB, s-1, s > first && s <= last
	default:
		return -1, -1
	}
	msg = -1
	if known {
		msg = (dir*f.stages+s)*f.mbs.n + mb
	}
	if on && f.t.Placement[to] != f.t.Placement[s] {
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
