package optim

import "github.com/pipelab/pipelab/pipeline/sim"

// Predict is asynchronous PipeDream with weight prediction (SpecTrain,
// Chen et al., arXiv 1809.02839; PipeOptim, Guan et al., arXiv
// 2312.00839), replayed on a timeline: the forward F(m, s) reads
//
//	ŵ_s = w_s − τ·γ·u_s,
//
// w_s the stage's current block, τ the number of the stage's own updates
// that land between this forward and its backward on the timeline (known
// from the table), γ the step size of the stage's next update and u_s the
// optimizer's current update direction per unit of γ (PipeOptim's rule):
// the momentum buffer for Momentum and Nesterov, Adam's m̂/(√v̂ + ε) for
// Adam and AdamW, the last gradient for plain SGD, zero before the stage's
// first update. The backward uses the same ŵ_s (it is stashed), and the
// update applies to the current block as in PipeDream.
type Predict struct {
	Timeline *sim.Timeline
}

// Name returns "predict".
func (Predict) Name() string { return "predict" }

func (p Predict) replay(r *run) error { return replayAsync(r, p.Timeline, asyncRule{predict: true}) }
