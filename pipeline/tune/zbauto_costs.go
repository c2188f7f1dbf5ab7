package tune

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// StageTimesOf reads the automatic schedule's inputs from a cost model
// that prices a table of p stages, stage s on rank s: each stage's F, I
// and W times, and as its Comm the longer of the two transfers across the
// boundary below it (the activation down, the gradient up).
func StageTimesOf(cost cost.Model, p int) []StageTimes {
	out := make([]StageTimes, p)
	for s := range out {
		out[s] = StageTimes{
			TF: cost.Compute(pipeline.F(s, 0)),
			TB: cost.Compute(pipeline.I(s, 0)),
			TW: cost.Compute(pipeline.W(s, 0)),
		}
		if s+1 < p {
			out[s].Comm = max(cost.Transfer(pipeline.F(s, 0), s, s+1), cost.Transfer(pipeline.I(s+1, 0), s+1, s))
		}
	}
	return out
}

// WeightGradShareOf returns the largest M_W / M_B over the p stages of mem
// (cost.WeightGradMemory), the share ZBAutoProblem.WeightGradShare takes, or
// 1 where mem is nil or holds all of M_B until W.
func WeightGradShareOf(mem cost.Memory, p int) float64 {
	wg, ok := mem.(cost.WeightGradMemory)
	if !ok {
		return 1
	}
	share := 0.0
	for s := range p {
		if mb := wg.ActivationBytes(s); mb > 0 {
			share = max(share, wg.WeightGradBytes(s)/mb)
		}
	}
	if !(share > 0 && share <= 1) {
		return 1
	}
	return share
}
