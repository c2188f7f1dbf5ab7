package optim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline/sim"
)

// DelayCompensation is PipeDream with DC-ASGD's delay compensation (Zheng
// et al., "Asynchronous Stochastic Gradient Descent with Delay
// Compensation", ICML 2017, arXiv 1609.08326), replayed on a timeline: the
// gradient g taken at the forward's stashed block w_stash is corrected by
// the diagonal of its outer product, a cheap approximation of the Hessian,
//
//	g ← g + λ·g⊙g⊙(w_now − w_stash),
//
// w_now the stage's block when the backward runs, before the optimizer
// takes the corrected gradient. λ = Lambda (DC-ASGD's constant λ).
type DelayCompensation struct {
	Timeline *sim.Timeline
	// Lambda is λ, at least 0; zero is PipeDream.
	Lambda float64
}

// DefaultDCLambda is λ when none is given.
const DefaultDCLambda = 0.04

// Name returns "dc".
func (DelayCompensation) Name() string { return "dc" }

func (d DelayCompensation) replay(r *run) error {
	if !(d.Lambda >= 0) || math.IsInf(d.Lambda, 0) {
		return fmt.Errorf("%w: dc λ = %g must be non-negative and finite", ErrSettings, d.Lambda)
	}
	return replayAsync(r, d.Timeline, asyncRule{dcLambda: d.Lambda})
}
