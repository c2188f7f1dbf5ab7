package experiments

import (
	"context"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// delaysMeasure measures PipeDream's delays k - j_k^(s) per stage count
// (measure delays, docs/reference.md §1.3).
type delaysMeasure struct{}

func (delaysMeasure) setDefaults(s *Spec) { s.setDelaysDefaults() }

func (delaysMeasure) validate(s *Spec, v validator) error { return s.validateDelays(v) }

func (delaysMeasure) expand(s *Spec, add func(Run)) {
	for _, st := range s.Stages {
		for _, n := range s.delayMicrobatches(st) {
			add(Run{Method: "pipedream", Stages: st, TotalMicrobatches: n})
		}
	}
}

func (delaysMeasure) runBound(s *Spec) float64 {
	per := float64(len(s.TotalMicrobatches))
	if per == 0 {
		per = 1
	}
	return float64(len(s.Stages)) * per
}

func (delaysMeasure) tables(s *Spec, st int, add func(family string, sh pipeline.Shape, key ...any)) {
	if s.TotalMicrobatchesPerStage > 0 {
		// Named at the stage count, as the key may be the default.
		add("pipedream", pipeline.Shape{Microbatches: s.TotalMicrobatchesPerStage * st})
	}
	for j, n := range s.TotalMicrobatches {
		add("pipedream", pipeline.Shape{Microbatches: n}, "total_microbatches", j)
	}
}

func (delaysMeasure) execute(_ context.Context, _ *Timelines, r Run) (*results.Tables, error) {
	return runDelays(r)
}

func (delaysMeasure) seconds(r Run) float64 {
	// A 1F1B timeline of 10·S microbatches and its S·N delays.
	return float64(10*r.Stages*r.Stages) * 2 * blockVisit
}
