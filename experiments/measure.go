package experiments

import (
	"context"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// measure is what a spec's runs measure (the spec key measure). Each
// measure is one type holding its part of every step a spec goes through
// (measure_*.go), so the steps dispatch once (measureOf) instead
// of switching on the name each.
type measure interface {
	// setDefaults fills the measure's defaults (Spec.setDefaults).
	setDefaults(s *Spec)
	// validate checks the measure's keys, after the keys every measure
	// shares (Spec.validate), with the defaults filled.
	validate(s *Spec, v validator) error
	// expand adds the validated spec's runs, in a fixed order.
	expand(s *Spec, add func(Run))
	// runBound bounds the number of runs expand makes, by the arithmetic
	// of its loops (checkSizes).
	runBound(s *Spec) float64
	// tables adds the tables the runs on st stages (ranks, for the
	// schedules measure) generate, each with the key that sets its
	// microbatch count (checkSizes).
	tables(s *Spec, st int, add func(family string, sh pipeline.Shape, key ...any))
	// execute computes one run, its timelines taken from or added to c.
	execute(ctx context.Context, c *Timelines, r Run) (*results.Tables, error)
	// seconds is the run's rough CPU time (EstimatedSeconds).
	seconds(r Run) float64
}

// measures are the measures by spec name; knownMeasures lists them in
// the order messages name them.
var measures = map[string]measure{
	Convergence:   convergenceMeasure{},
	DelayStats:    delaysMeasure{},
	Schedules:     schedulesMeasure{},
	DelayProfiles: delayProfilesMeasure{},
}

// measureOf returns the measure named name, convergence for "" (a spec
// not yet validated). A name no measure has is refused when the spec is
// validated and when a run executes (Execute); elsewhere it counts as
// convergence.
func measureOf(name string) measure {
	if m, ok := measures[name]; ok {
		return m
	}
	return convergenceMeasure{}
}
