package optim

import (
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// PipeDream replays a timeline as asynchronous PipeDream with weight
// stashing (docs/reference.md §1.2): F(m, s) stashes stage s's current block,
// B(m, s) computes the block gradient at the stashed point z_m and applies
// x_s ← x_s - γg at once, in the replay order of start time then stage.
// Microbatch m uses batch m mod Batches. Any timeline of F and B actions
// can be replayed this way, generated or imported.
type PipeDream struct {
	Timeline *sim.Timeline
}

// Name returns "pipedream".
func (PipeDream) Name() string { return "pipedream" }

func (p PipeDream) replay(r *run) error {
	backwards, microbatches, err := checkTimeline(p.Timeline, r.stages)
	if err != nil {
		return err
	}
	r.res.Microbatches = microbatches
	x := r.obj.Init()
	if err := r.begin(backwards, x); err != nil {
		return err
	}
	current := func() []float64 { return x }
	ps := newPasses(r)
	for _, e := range replayOrder(p.Timeline) {
		a := e.Action
		switch a.Kind {
		case pipeline.Forward:
			ps.forward(a.Microbatch, a.Stage, r.block(x, a.Stage))
		case pipeline.Backward:
			g, err := ps.backward(a.Microbatch, a.Stage, r.noise)
			if err != nil {
				return err
			}
			r.step(r.block(x, a.Stage), g, a.Stage, 1)
			if err := r.advance(1, e.End, current); err != nil || r.stopped {
				return err
			}
		}
	}
	return r.finish(endTime(p.Timeline), x)
}
