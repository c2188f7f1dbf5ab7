package optim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline/sim"
)

// ErrorFeedback is PipeDream-2BW (TwoBW) with an update-level,
// error-feedback correction after Zmushko et al., "One-Step Gradient
// Delay is Not a Barrier for Large-Scale Asynchronous Pipeline Parallel LLM
// Pretraining" (ICML 2026, arXiv 2606.30634, §3), replayed on a timeline.
// The rule below is this project's reading of the paper's abstract and
// secondary accounts, not the paper's formula, whose full text was not
// available (docs/methods.md, ef).
// Each stage's optimizer computes its update u_t from the delayed
// gradient as under 2BW; the stage then moves by
//
//	u_t + λ·(u_t − u_{t−1}),
//
// u_{t−1} the optimizer's previous update on the stage (one extra
// block-sized buffer), no correction on the stage's first update. Under a
// one-step delay u_t is the update of the weights one version back; the
// difference of consecutive updates is the error feedback's estimate of
// what the delay withheld, added back to the next step. λ = Lambda, 1 by
// default; λ = 0 is TwoBW. docs/methods.md says how this formula was
// read from the paper and what of it could not be checked.
type ErrorFeedback struct {
	Timeline *sim.Timeline
	// Accumulate is 2BW's A, the microbatches per update; zero means S.
	// A = 1 applies the correction to PipeDream's updates.
	Accumulate int
	// Lambda is λ, at least 0.
	Lambda float64
}

// DefaultEFLambda is λ when none is given: the difference of consecutive
// updates added back whole.
const DefaultEFLambda = 1.0

// Name returns "ef".
func (ErrorFeedback) Name() string { return "ef" }

func (e ErrorFeedback) replay(r *run) error {
	if !(e.Lambda >= 0) || math.IsInf(e.Lambda, 0) {
		return fmt.Errorf("%w: ef λ = %g must be non-negative and finite", ErrSettings, e.Lambda)
	}
	a := e.Accumulate
	if a == 0 {
		a = r.stages
	}
	if a < 1 {
		return fmt.Errorf("%w: ef accumulates %d microbatches per update, at least 1 needed", ErrSettings, a)
	}
	return replayAsync(r, e.Timeline, asyncRule{accumulate: a, errorFeedback: true, efLambda: e.Lambda})
}

// feedback applies the error-feedback correction to block xs of stage s
// after the optimizer moved it from a.before: λ·(u − u_prev), u the move.
func (a *asyncReplay) feedback(s int, xs []float64) {
	prev := a.efPrev[s]
	first := prev == nil
	if first {
		prev = make([]float64, len(xs))
		a.efPrev[s] = prev
	}
	corr := a.u[:len(xs)]
	for j, v := range xs {
		u := v - a.before[j]
		corr[j] = a.rule.efLambda * (u - prev[j])
		prev[j] = u
	}
	if first {
		return
	}
	for j, c := range corr {
		xs[j] += c
	}
	a.r.shift(s, corr, 1)
}
