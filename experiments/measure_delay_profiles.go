package experiments

import (
	"context"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// delayProfilesMeasure measures per-stage delays of asynchronous tables
// and replays RPD against them (measure delay-profiles,
// figure_delay_profiles_run.go).
type delayProfilesMeasure struct{}

func (delayProfilesMeasure) setDefaults(s *Spec) { s.setDelayProfilesDefaults() }

func (delayProfilesMeasure) validate(s *Spec, v validator) error { return s.validateDelayProfiles(v) }

func (delayProfilesMeasure) expand(s *Spec, add func(Run)) {
	for _, m := range s.Methods {
		for _, f := range s.Families {
			for _, st := range s.Stages {
				add(Run{Method: m.Name, Family: f, Stages: st, TotalMicrobatches: s.TotalMicrobatchesPerStage * st, Accumulate: m.Accumulate})
			}
		}
	}
}

func (delayProfilesMeasure) runBound(s *Spec) float64 {
	return float64(len(s.Methods)) * float64(len(s.Families)) * float64(len(s.Stages))
}

func (delayProfilesMeasure) tables(s *Spec, st int, add func(family string, sh pipeline.Shape, key ...any)) {
	for _, f := range s.Families {
		add(f, pipeline.Shape{Microbatches: s.TotalMicrobatchesPerStage * st})
	}
}

func (delayProfilesMeasure) execute(_ context.Context, _ *Timelines, r Run) (*results.Tables, error) {
	return runDelayProfiles(r)
}

// seconds: its runs are replays, estimated as convergence runs are.
func (delayProfilesMeasure) seconds(r Run) float64 { return replaySeconds(r) }
