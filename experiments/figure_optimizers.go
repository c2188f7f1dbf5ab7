package experiments

import (
	"fmt"
	"strconv"
	"strings"
)

// figureOptimizersUnderDelay asks which per-stage optimizer suffers least
// from a delayed pipeline, on the character LM (ShakespeareLM's model on
// the shipped text): the validation loss of PipeDream, of PipeDream-2BW
// and of 2BW with the one-step-delay paper's error feedback (method ef: ef
// is a method, 2BW plus the correction, not a modifier of any method, so
// "with error feedback" is ef against 2bw), each minus synchronous SGD's
// at the same microbatches, for AdamW, Muon and Lion, each method and
// optimizer at its own best step (docs/figures.md,
// optimizers-under-delay).
var figureOptimizersUnderDelay = Figure{
	Name:    "optimizers-under-delay",
	Summary: optimizersSummary(),
	Specs: func(quick bool) []*Spec {
		size := pick(quick, 0, 1)
		var s Spec
		ShakespeareLM().Apply(&s)
		s.Name = "optimizers-under-delay"
		s.Seed, s.Seeds = 1, pick(quick, 1, 2)
		s.Stages = optimizersStages[size]
		s.TotalMicrobatches = []int{optimizersMicrobatches[size]} // sync, 2BW and ef: K/S updates
		// The final validation loss is what is compared; a record costs
		// 16 forward passes (8 training, 8 validation batches).
		s.LogPoints = 2
		for _, o := range delayOptimizers {
			// sync, 2bw and ef average S microbatches per update: their
			// grid is centred apart (shift).
			for _, m := range []string{"pipedream", "2bw", "ef", "sync"} {
				c := o.centre
				if m != "pipedream" {
					c += o.shift
				}
				s.Methods = append(s.Methods, MethodSpec{Name: m, Optimizer: OptimizerSpec{Name: o.name},
					Steps: Grid{Pow2: []int{c - 1, c + 1}}})
			}
		}
		return []*Spec{&s}
	},
	// Measured (docs/figures.md, optimizers-under-delay): quick 8.7
	// CPU-s; full about 500–540 of the 701–716 CPU-s it and
	// staleness-law took together (two runs, by the runs' wall seconds).
	Seconds: [2]float64{9, 515},
}

// optimizersStages are the figure's S and optimizersMicrobatches its K,
// quick and full: at K = 600 sync makes 150
// updates at S = 4 and 100 at S = 6, enough for every optimizer's sync
// and PipeDream to end well below the text's unigram entropy
// (docs/figures.md, optimizers-under-delay). S = 8 is not run: there sync
// with momentum SGD needed 150 updates (K = 1,200) to leave the unigram
// plateau, at 2.8 times S = 4's cost per microbatch. The quick size (S = 4,
// 48 microbatches, one seed) checks the pipeline; its LM is undertrained.
var (
	optimizersStages       = [2][]int{{4}, {4, 6}}
	optimizersMicrobatches = [2]int{48, 600}
)

// optimizersSummary is the figure's summary, with the LM's size at each
// S and the characters each run sees (full size).
func optimizersSummary() string {
	lm := ShakespeareLM()
	var names, params []string
	for _, o := range delayOptimizers {
		names = append(names, o.label)
	}
	for _, s := range optimizersStages[1] {
		params = append(params, groupDigits(lm.Parameters(s)))
	}
	return fmt.Sprintf("validation gap of PipeDream, 2BW and 2BW with error feedback (ef) against sync on the LM "+
		"(the shipped text; E %d, T %d, %s parameters at S = %s; K = %d microbatches, %s characters seen per run) for %s, against S",
		lm.Embed, lm.SeqLen, strings.Join(params, "/"), joinInts(optimizersStages[1], ", "),
		optimizersMicrobatches[1], groupDigits(lm.Characters(optimizersMicrobatches[1])), strings.Join(names, ", "))
}

// delayOptimizer is one optimizer of the figure and the centre of
// PipeDream's step grid (log2), with the shift of the averaging methods'
// centre (sync, 2bw, ef); every grid is centre−1..centre+1.
type delayOptimizer struct {
	name, label   string
	centre, shift int
}

// delayOptimizers, placed by a one-seed pilot at S = 4 and 6, K = 600,
// and the figure's first full run (docs/figures.md,
// optimizers-under-delay): AdamW, PipeDream 2^-9 (the first run's grid
// 2^-8..2^-6 chose 2^-7 at S = 4 while its extension at S = 6 walked
// down to 2^-10, 0.25 nats better than 2^-8) and the averaging methods
// 2^-8; Muon 2^-7 (PipeDream chose 2^-7, the top of 2^-9..2^-7, at both
// S) and 2^-5; Lion, whose sign update moves every coordinate by the
// full step, 2^-11 and 2^-10. Momentum SGD is not run: its 2BW at S = 6
// stayed on the unigram plateau (3.17–3.23 nats at every step of
// 2^-6..2^-3 in the pilot).
var delayOptimizers = []delayOptimizer{
	{"adamw", "AdamW", -9, 1}, {"muon", "Muon", -7, 2}, {"lion", "Lion", -11, 1},
}

// joinInts writes ns with sep between them.
func joinInts(ns []int, sep string) string {
	var out []string
	for _, n := range ns {
		out = append(out, strconv.Itoa(n))
	}
	return strings.Join(out, sep)
}
