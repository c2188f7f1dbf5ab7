package experiments

import (
	"fmt"
	"strings"
)

// figureStalenessLaw measures the paper's central claim (docs/reference.md
// §1): the stale-read term of PipeDream's bound is of order γ²S⁴, so the
// loss PipeDream gives up against delay-free SGD grows like S⁴/K once the
// step γ is tuned. Each objective runs PipeDream and synchronous SGD of
// one microbatch per update (the same gradients in the same order, K
// updates each, no delay) at fixed K over S, each at its own best step of
// a wide grid; the gap is fitted as a·S^b (results.Fits) against b = 4. A
// second sweep holds S and varies K, against K^−1 (docs/figures.md,
// staleness-law).
var figureStalenessLaw = Figure{
	Name:    "staleness-law",
	Summary: lawSummary(),
	// Quick: measured 15.5 CPU-s (docs/figures.md, staleness-law). Full:
	// the convex parts about 20 CPU-s; the LM's 90 runs of 4,000
	// microbatches, from one-seed pilots (2026-12-06, load about 2), about
	// 6, 10.7 and 20 CPU-s a run at S = 3, 4 and 6, so about 740 on its
	// two-step grid and about 1,100 once the grid grows a step per method
	// and S (an estimate).
	Seconds: [2]float64{16, 1120},
}

// lawLMStages and lawLMMicrobatches are the S and K of the full law
// figure's LM (the spec staleness-law-lm of figures/staleness-law.yaml),
// which its summary states (TestPresetSummaries).
var (
	lawLMStages       = []int{3, 4, 6}
	lawLMMicrobatches = 4000
)

// lawSummary is the staleness-law figure's summary, with the LM's size
// at each S and the characters each of its runs sees (full size).
func lawSummary() string {
	lm := ShakespeareLM()
	var params []string
	for _, s := range lawLMStages {
		params = append(params, groupDigits(lm.Parameters(s)))
	}
	return fmt.Sprintf("PipeDream's final loss minus delay-free SGD's at fixed K against S (quadratic, logistic, and the LM on the shipped text: "+
		"E %d, T %d, %s parameters at S = %s, K = %s microbatches, %s characters seen per run), each at its tuned step, "+
		"with the fitted exponent against the paper's S⁴/K",
		lm.Embed, lm.SeqLen, strings.Join(params, "/"), joinInts(lawLMStages, ", "), groupDigits(lawLMMicrobatches),
		groupDigits(lm.Characters(lawLMMicrobatches)))
}
