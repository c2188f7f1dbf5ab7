package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Sync is synchronous minibatch SGD on a flush schedule: the timeline is
// one iteration of N microbatches, every forward of an iteration reads the
// same point, and after the flush every stage steps once with the gradient
// averaged over the iteration's microbatches. Iteration i's microbatch m
// uses batch (i·N + m) mod Batches; iteration i ends at (i+1) times the
// timeline's end. An iteration counts S block updates. Since nothing
// changes the weights within an iteration, the order of its actions does
// not matter, and any flush schedule (split backwards, several stages per
// rank) can be replayed.
type Sync struct {
	Timeline *sim.Timeline
	// Iterations is the number of iterations; zero means one.
	Iterations int
}

// Name returns "sync".
func (Sync) Name() string { return "sync" }

func (sy Sync) replay(r *run) error {
	n, err := flushMicrobatches(sy.Timeline, r.stages)
	if err != nil {
		return err
	}
	iters := max(sy.Iterations, 1)
	r.res.Microbatches = n * iters
	period := endTime(sy.Timeline)
	x := r.obj.Init()
	if err := r.begin(iters*r.stages, x, 1); err != nil {
		return err
	}
	current := func() []float64 { return x }
	sum, g := make([]float64, len(x)), make([]float64, len(x))
	for i := 0; i < iters; i++ {
		clear(sum)
		for m := 0; m < n; m++ {
			r.obj.Gradient(g, x, (i*n+m)%r.obj.Batches(), r.noise)
			for j, v := range g {
				sum[j] += v
			}
		}
		for j := range sum {
			sum[j] /= float64(n)
		}
		r.landing(float64(i+1)*period, current)
		for s := 0; s < r.stages; s++ {
			r.step(r.block(x, s), r.block(sum, s), s)
		}
		if err := r.advance(r.stages, float64(i+1)*period, current); err != nil || r.stopped {
			return err
		}
	}
	return r.finish(float64(iters)*period, x)
}

// flushMicrobatches checks that tl is one iteration of a flush schedule on
// the objective's stages and returns its microbatch count, the forwards on
// stage 0.
func flushMicrobatches(tl *sim.Timeline, stages int) (int, error) {
	if err := checkStages(tl, stages); err != nil {
		return 0, err
	}
	if u := tl.Table.Update; u != pipeline.Flush {
		return 0, fmt.Errorf("%w: sync SGD needs a flush schedule, the table's update rule is %v", ErrTimeline, u)
	}
	n := 0
	for _, e := range singleEvents(tl) {
		if e.Action.Kind == pipeline.Forward && e.Action.Stage == 0 {
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: flush iteration without forwards on stage 0", ErrTimeline)
	}
	return n, nil
}
