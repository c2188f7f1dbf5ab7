package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// λ = 0 is 2BW bit for bit, for every optimizer and group size.
func TestErrorFeedbackZeroIsTwoBW(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 30})
	f := logistic(t, 100, 16, 4, 5, 0.5, 2)
	for _, alg := range Algorithms {
		for _, a := range []int{0, 1, 3} {
			set := Settings{StepSize: 0.02, Seed: 3, Optimizer: Optimizer{Algorithm: alg, Momentum: 0.9}}
			identicalResults(t, "ef λ=0 "+string(alg), mustRun(t, f, TwoBW{Timeline: tl, Accumulate: a}, set),
				mustRun(t, f, ErrorFeedback{Timeline: tl, Accumulate: a}, set))
		}
	}
}

// With one stage the correction is the whole story (no staleness): the
// point equals a sequential loop that moves by u_t + λ·(u_t − u_{t−1}),
// u_t the optimizer's own update (SGD: −γ·g_t; Adam: torch's update from
// the reference), no correction at t = 1. Written apart from the replay.
func TestErrorFeedbackOneStageClosedForm(t *testing.T) {
	const k, gamma, lambda = 50, 0.01, 0.7
	obj := quadratic(t, 40, 6, 1, 5, 2)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: k})
	for _, alg := range []Algorithm{SGD, Adam} {
		opt := Optimizer{Algorithm: alg}
		ref := reference{opt: opt, gamma: gamma}
		x := obj.Init()
		g, prev, before := make([]float64, 6), make([]float64, 6), make([]float64, 6)
		for i := range k {
			obj.Gradient(g, x, i%obj.Batches(), nil)
			copy(before, x)
			ref.step(x, g)
			for j := range x {
				u := x[j] - before[j]
				if i > 0 {
					x[j] += lambda * (u - prev[j])
				}
				prev[j] = u
			}
		}
		res := mustRun(t, obj, ErrorFeedback{Timeline: tl, Accumulate: 1, Lambda: lambda}, Settings{StepSize: gamma, Optimizer: opt})
		closeVectors(t, "ef one stage "+string(alg), res.X, x, 1e-12)
	}
}

// The correction changes a delayed run, updates as often as 2BW, and
// refuses a negative λ or group size.
func TestErrorFeedbackSettings(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 30})
	f := quadratic(t, 100, 16, 4, 5, 2)
	set := Settings{StepSize: 0.01}
	ef := mustRun(t, f, ErrorFeedback{Timeline: tl, Accumulate: 4, Lambda: 1}, set)
	bw := mustRun(t, f, TwoBW{Timeline: tl, Accumulate: 4}, set)
	if ef.BlockUpdates != bw.BlockUpdates || ef.FinalLoss == bw.FinalLoss {
		t.Errorf("ef: %d updates, loss %g; 2bw: %d, %g", ef.BlockUpdates, ef.FinalLoss, bw.BlockUpdates, bw.FinalLoss)
	}
	// The tracker follows the correction: with a record after every
	// update the loss is tracked, and it equals the loss at the point.
	tracked := mustRun(t, f, ErrorFeedback{Timeline: tl, Accumulate: 4, Lambda: 1}, Settings{StepSize: 0.01, LogEvery: 1})
	if got, want := tracked.FinalLoss, f.Loss(tracked.X); math.Abs(got-want) > 1e-12*want {
		t.Errorf("tracked final loss %.15g, loss at the point %.15g", got, want)
	}
	for _, m := range []Method{ErrorFeedback{Timeline: tl, Lambda: -1}, ErrorFeedback{Timeline: tl, Accumulate: -2, Lambda: 1}} {
		if _, err := Run(f, m, set); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}
