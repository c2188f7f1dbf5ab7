package validation

import (
	"github.com/pipelab/pipelab/pipeline/sim"
)

// postValidatedIteration is the time an iteration takes, in steady state,
// under the Zero Bubble runtime's optimizer post-validation (the paper's
// §4, "bypassing optimizer synchronizations"; --enable-optimizer-post-validation
// in its script): a rank takes its optimizer step as soon as its own last
// weight gradient is done and starts the next iteration's work after it,
// checking the global gradient norm and NaNs afterwards instead of waiting
// for every rank first. The ranks then keep the offsets the schedule gives
// them, and iterations follow each other at the pace of the rank whose
// busy span (first compute start to last compute end) plus its own step
// tail is longest: the paper's cost, whose bubble rate it defines on the
// slowest stage's span. tails[r] is rank r's step tail
// (cost.GPUModel.RankStepTails).
func postValidatedIteration(tl *sim.Timeline, tails []float64) float64 {
	first := map[int]float64{}
	last := map[int]float64{}
	for _, e := range tl.Events {
		if !e.Action.Kind.IsCompute() {
			continue
		}
		if f, ok := first[e.Rank]; !ok || e.Start < f {
			first[e.Rank] = e.Start
		}
		last[e.Rank] = max(last[e.Rank], e.End)
	}
	worst := 0.0
	for r, f := range first {
		worst = max(worst, last[r]-f+tails[r])
	}
	return worst
}
