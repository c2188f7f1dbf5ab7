package sim

import "github.com/pipelab/pipelab/pipeline"

// A message is what one compute hands to the next stage of its
// microbatch's route: F(s, m) sends its activation on to s+1 (direction
// dirF), B or I(s, m) sends the input gradient back to s-1 (dirB). The
// simulator tracks every message by a dense number, msgKey, rather than by
// action: whether it has been produced, whether it has arrived, and which
// transfer carries it.
const (
	dirF = 0 // an activation, from stage s to s+1
	dirB = 1 // an input gradient, from stage s to s-1
)

// msgKey numbers the message of stage st and microbatch m in direction dir.
func (s *simulator) msgKey(dir, st, m int) int { return dir*s.stages*s.mbs + st*s.mbs + m }

// messageDir returns the direction of the message kind k produces (F, B,
// I) or sends (SEND_F, SEND_B).
func messageDir(k pipeline.Kind) (dir int, ok bool) {
	switch k {
	case pipeline.Forward, pipeline.SendF:
		return dirF, true
	case pipeline.Backward, pipeline.BackwardInput, pipeline.SendB:
		return dirB, true
	}
	return 0, false
}

// peer returns the stage that receives what stage st sends for microbatch m
// in direction dir, if m's route goes on. Only the route's end is checked,
// not that st is on the route: buildTransfers draws one jitter per stage
// pair this admits, and changing the set would change every later draw.
func (s *simulator) peer(dir, st, m int) (int, bool) {
	rt := s.t.RouteOf(m)
	if dir == dirF {
		return st + 1, st < rt.Last
	}
	return st - 1, st > rt.First
}

// produced reports whether the compute behind action a has finished: a
// itself for F, B and I, the compute whose output a SEND sends.
func (s *simulator) produced(a pipeline.Action) bool {
	dir, _ := messageDir(a.Kind)
	return s.done[s.msgKey(dir, a.Stage, a.Microbatch)]
}

// have reports whether rank r holds the message of stage st and
// microbatch m in direction dir: computed there, or arrived.
func (s *simulator) have(r, dir, st, m int) bool {
	k := s.msgKey(dir, st, m)
	if s.t.Placement[st] == r {
		return s.done[k]
	}
	return s.arrived[k]
}

// inputsReady reports whether every input of action a on rank r is there.
func (s *simulator) inputsReady(r int, a pipeline.Action) bool {
	for _, sub := range singleActions(a) {
		if _, missing := s.missingInput(r, sub); missing {
			return false
		}
	}
	return true
}

// missingInput returns the first input of single action a on rank r that
// is not there yet: the compute that produces it, and missing = true. A
// forward needs the previous stage's activation; a backward its own
// forward and the next stage's gradient; a W its own I.
func (s *simulator) missingInput(r int, a pipeline.Action) (producer pipeline.Action, missing bool) {
	st, m := a.Stage, a.Microbatch
	switch a.Kind {
	case pipeline.Forward:
		if prev, ok := s.peer(dirB, st, m); ok && !s.have(r, dirF, prev, m) {
			return pipeline.F(prev, m), true
		}
	case pipeline.Backward, pipeline.BackwardInput:
		if !s.done[s.msgKey(dirF, st, m)] {
			return pipeline.F(st, m), true
		}
		if next, ok := s.peer(dirF, st, m); ok && !s.have(r, dirB, next, m) {
			// B, whether the table runs B or I there: waitAt names the
			// one it runs.
			return pipeline.B(next, m), true
		}
	case pipeline.BackwardWeight:
		if !s.done[s.msgKey(dirB, st, m)] {
			return pipeline.I(st, m), true
		}
	}
	return pipeline.Action{}, false
}
