package experiments

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
)

// The rates that turn a run's work into seconds of one core of the
// 2-core machine the figures are measured on, fitted to the CPU time of
// single runs (docs/benchmarks.md, issue 16): the full lm figure's
// PipeDream run (297 microbatches of charlm, 109 records) took 82 s, the
// quick scaling figure's PipeDream runs 12-21 ms and its RPD runs at
// S = 32 82 ms.
const (
	// linearRate is the multiply-adds per second of the linear
	// objectives' gradients and losses.
	linearRate = 1e9
	// lmRate is charlm's, counted as 3 per parameter and token for a
	// gradient and 1 for a loss.
	lmRate = 1.7e9
	// blockVisit is the seconds of bookkeeping per block of a stage an
	// iteration touches (stashes, version lookups, delays).
	blockVisit = 100e-9
)

// EstimatedSeconds is the rough CPU time of run r, for starting the
// longest runs first (sweep.Pool): the work of its gradients, loss records and
// block visits at the rates above. It needs no timeline: a budget's
// microbatches are read off the steady state of a 1F1B pipeline (one
// microbatch per F + B + W of the slowest stage, after S - 1 of filling).
// A factor of two either way is good enough: it only orders the runs.
func EstimatedSeconds(r Run) float64 { return measureOf(r.Measure).seconds(r) }

// replaySeconds is a replay's estimate: its gradients, records and block
// visits.
func replaySeconds(r Run) float64 {
	s := float64(r.Stages)
	n := estimatedMicrobatches(r)
	grads, updates := n, n*s // full-model gradients and block updates
	if methodOf(r.Method).Replay == optim.ReplaySampled {
		// K iterations, each a forward over every block and a backward
		// down to one stage: about half a gradient and S block visits.
		k := n * s
		if r.Updates > 0 {
			k = float64(r.Updates)
		}
		grads, updates = k/2, k*s
	}
	records := float64(optim.DefaultRecords)
	switch {
	case len(r.Cut) > 0:
		records = updates // a cut run records every block update
	case r.LogEvery > 0:
		records = updates / float64(r.LogEvery)
	}
	// Records denser than one per S block updates follow the loss through
	// each update, at 1/S of an evaluation each (optim's tracker).
	records = min(records, updates/s)
	visits := updates * blockVisit
	if objectiveOf(r.Objective).LM {
		cfg := LMConfig(r.Corpus, r.Embed, r.SeqLen)
		layers := float64(max(r.BlocksPerStage, 1) * max(r.Stages-2, 1))
		e := float64(cfg.Embed)
		params := layers*12*e*e + lmVocab*e
		tokens := float64(r.Batch * cfg.SeqLen)
		// A record evaluates the training batches and the held-out
		// windows (LMValidationWindows, or up to all of the held-out
		// text: about a ninth of the training characters, the shipped
		// text's or the markov corpus's n).
		held := float64(charlm.TinyShakespeareBytes) / 10
		if r.Corpus == charlm.CorpusMarkov {
			held = float64(r.N) / 9
		}
		windows := math.Min(float64(cmp.Or(r.ValidationWindows, LMValidationWindows)), math.Floor(held/tokens))
		evals := float64(charlm.DefaultEvalBatches) + windows
		return (3*grads+evals*records)*tokens*params/lmRate + visits
	}
	d, b := float64(r.D), float64(r.Batch)
	return (2*grads*b*d+records*float64(r.N)*d)/linearRate + visits
}

// schedulePlots is the plotting a schedules run leaves its figure.
const schedulePlots = 0.05

// lmVocab is about the characters of charlm's corpora (the shipped text
// has 65).
const lmVocab = 65

// estimatedMicrobatches is the run's N, or about the N that fills its
// budget.
func estimatedMicrobatches(r Run) float64 {
	if r.Budget <= 0 {
		return float64(max(r.TotalMicrobatches, 1))
	}
	per := 2.0 // unit time: F and B one step each
	if r.Cost.desc().GPU {
		per = slowestStage(r.Cost, r.Stages)
	}
	fill := float64(r.Stages - 1)
	switch methodOf(r.Method).Replay {
	case optim.ReplayAveraging:
		// Each round of R·H = S·H microbatches fills and drains
		// (docs/reference.md §1.5).
		round := float64(r.Stages * max(r.LocalSteps, 1))
		return max(1, r.Budget/(per*(1+fill/round)))
	case optim.ReplayFlush:
		// Every iteration of M microbatches fills and drains.
		m := float64(max(r.Microbatches, 1))
		return max(1, r.Budget/per*m/(m+fill))
	}
	return max(1, r.Budget/per-fill)
}

// slowestStage is the F + B + W seconds of the GPU model's slowest stage
// (2 when the model cannot be built: validation reports why).
func slowestStage(c CostSpec, stages int) float64 {
	k := stageKey{c, stages}
	if v, ok := stageTimes.Load(k); ok {
		return v.(float64)
	}
	t := 2.0
	if gm, err := gpuModel(c, stages); err == nil {
		var ts []float64
		for s := range stages {
			st := gm.Stage(s)
			ts = append(ts, st.TF+st.TB+st.TW)
		}
		if m := slices.Max(ts); m > 0 && !math.IsInf(m, 0) {
			t = m
		}
	}
	stageTimes.Store(k, t)
	return t
}

type stageKey struct {
	cost   CostSpec
	stages int
}

// stageTimes caches slowestStage: every run of a sweep asks. It memoises a
// pure function of its key, a float each, and only orders runs, so it is
// the package's, unlike the timelines a sweep's runner owns (Timelines).
var stageTimes sync.Map
