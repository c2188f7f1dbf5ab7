package experiments

import (
	"context"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// schedulesMeasure compares tabular schedules at the formula, lockstep
// and simulated levels (measure schedules).
type schedulesMeasure struct{}

func (schedulesMeasure) setDefaults(*Spec) {} // schedules has no defaults: kinds and microbatches are required

func (schedulesMeasure) validate(s *Spec, v validator) error { return s.validateSchedules(v) }

func (schedulesMeasure) expand(s *Spec, add func(Run)) {
	for _, f := range s.Families {
		for _, p := range s.Ranks {
			for _, m := range s.Microbatches {
				add(Run{Family: f, Ranks: p, Microbatches: m})
			}
		}
	}
}

func (schedulesMeasure) runBound(s *Spec) float64 {
	return float64(len(s.Families)) * float64(len(s.Ranks)) * float64(len(s.Microbatches))
}

func (schedulesMeasure) tables(s *Spec, st int, add func(family string, sh pipeline.Shape, key ...any)) {
	for _, f := range s.Families {
		for j, n := range s.Microbatches {
			add(f, ComparisonShape(0, n, 0), "microbatches", j)
		}
	}
}

func (schedulesMeasure) execute(_ context.Context, _ *Timelines, r Run) (*results.Tables, error) {
	return runSchedule(r)
}

func (schedulesMeasure) seconds(r Run) float64 {
	// The run is quick, but the plots it adds to its figure (a Gantt
	// chart and its share of the comparisons, about 50 ms) wait for
	// the figure's last run: counting them starts the figure early
	// enough that its plots overlap other runs.
	return float64(r.Ranks*r.Microbatches)*50*blockVisit + schedulePlots
}
