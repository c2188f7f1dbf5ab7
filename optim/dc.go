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
// takes the corrected gradient.
//
// The paper has two forms. DC-ASGD-c (method dc) takes a constant λ =
// Lambda. DC-ASGD-a (method dc-a, Adaptive) takes, coordinate by
// coordinate, λ = λ0/√(ms + ε), with λ0 = Lambda and ms the stage's
// running mean square of its gradients, ms ← m·ms + (1 − m)·g⊙g,
// updated with the gradient before it is corrected; m = 0.95 and ε =
// 1e-7 as in the authors' public implementation (Microsoft's multiverso,
// DCASGDAUpdater), whose per-worker mean square is here per stage, the
// stage being the worker of its block. The constant λ makes the
// correction scale with g², so at small gradients it vanishes (dc is then
// PipeDream to a few digits); the adaptive λ makes it scale with |g|.
type DelayCompensation struct {
	Timeline *sim.Timeline
	// Lambda is λ (dc) or λ0 (dc-a), at least 0; zero is PipeDream.
	Lambda float64
	// Adaptive selects DC-ASGD-a.
	Adaptive bool
}

// DefaultDCLambda is dc's λ when none is given, and DefaultDCALambda
// dc-a's λ0: the defaults of the public implementations of the paper's
// two forms (MXNet's DCASGD optimizer takes λ = 0.04; the ports of
// DC-ASGD-a take λ0 = 2). Both are swept in the remedies figure.
const (
	DefaultDCLambda  = 0.04
	DefaultDCALambda = 2.0
)

// DC-ASGD-a's mean-square decay m and the ε under its root.
const (
	dcMeanSquareDecay = 0.95
	dcEpsilon         = 1e-7
)

// Name returns "dc", or "dc-a" for the adaptive form.
func (d DelayCompensation) Name() string {
	if d.Adaptive {
		return "dc-a"
	}
	return "dc"
}

func (d DelayCompensation) replay(r *run) error {
	if !(d.Lambda >= 0) || math.IsInf(d.Lambda, 0) {
		return fmt.Errorf("%w: %s λ = %g must be non-negative and finite", ErrSettings, d.Name(), d.Lambda)
	}
	return replayAsync(r, d.Timeline, asyncRule{dcLambda: d.Lambda, dcAdaptive: d.Adaptive})
}
