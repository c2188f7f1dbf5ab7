package experiments

import (
	"fmt"
	"strconv"
	"strings"
)

// figureOptimizersUnderDelay asks which per-stage optimizer suffers least
// from a delayed pipeline, on the character LM (ShakespeareLM's model on
// the shipped text): the validation loss of PipeDream, of PipeDream-2BW
// and of 2BW with error feedback after the one-step-delay paper (method ef,
// a rule inferred from its abstract, docs/methods.md: ef
// is a method, 2BW plus the correction, not a modifier of any method, so
// "with error feedback" is ef against 2bw), each minus synchronous SGD's
// at the same microbatches, for AdamW and Lion, each method and
// optimizer at its own best step (docs/figures.md,
// optimizers-under-delay).
var figureOptimizersUnderDelay = Figure{
	Name:    "optimizers-under-delay",
	Summary: optimizersSummary(),
	// Quick: 8.7 CPU-s measured with Muon (docs/figures.md,
	// optimizers-under-delay), less without it. Full: 120 runs of 4,000
	// microbatches at S = 4, 11.3–13.2 CPU-s each in one-seed pilots
	// (docs/figures.md, "Cost"): an estimate, not yet measured.
	Seconds: [2]float64{6, 1500},
}

// optimizersLabels, optimizersStages and optimizersMicrobatches are the
// full figure's optimizers (as its summary writes them, in the order of
// figures/optimizers-under-delay.yaml), S and K, which its summary states
// (TestPresetSummaries).
var (
	optimizersLabels       = []string{"AdamW", "Lion"}
	optimizersStages       = []int{4}
	optimizersMicrobatches = 4000
)

// optimizersSummary is the figure's summary, with the LM's size at each
// S and the characters each run sees (full size).
func optimizersSummary() string {
	lm := ShakespeareLM()
	var params []string
	for _, s := range optimizersStages {
		params = append(params, groupDigits(lm.Parameters(s)))
	}
	return fmt.Sprintf("validation gap of PipeDream, 2BW and 2BW with error feedback (ef) against sync on the LM "+
		"(the shipped text; E %d, T %d, %s parameters at S = %s; K = %d microbatches, %s characters seen per run) for %s, against S",
		lm.Embed, lm.SeqLen, strings.Join(params, "/"), joinInts(optimizersStages, ", "),
		optimizersMicrobatches, groupDigits(lm.Characters(optimizersMicrobatches)), strings.Join(optimizersLabels, ", "))
}

// joinInts writes ns with sep between them.
func joinInts(ns []int, sep string) string {
	var out []string
	for _, n := range ns {
		out = append(out, strconv.Itoa(n))
	}
	return strings.Join(out, sep)
}
