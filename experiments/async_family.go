package experiments

import (
	"fmt"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
)

// DefaultAsyncFamily is the table the asynchronous methods replay when
// their entry names none: PipeDream's asynchronous 1F1B grid.
const DefaultAsyncFamily = "pipedream"

// asyncFamilyProblem says why the asynchronous methods cannot replay
// family's table on s ranks, or returns nil: the table must exist, hold
// one stage per rank on one route (the objective's blocks are the ranks)
// and not average replicas (LocalSGD's rule, not an asynchronous one).
func asyncFamilyProblem(family string, s int) error {
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: s, Microbatches: 2 * s, LocalSteps: 1})
	switch {
	case err != nil:
		return fmt.Errorf("%s does not generate a table on %d ranks: %w", family, s, err)
	case tab.Update == pipeline.ReplicaAveraging:
		return fmt.Errorf("%s averages replicas; only localsgd replays it", family)
	case tab.Stages() != s || tab.Ranks() != s || tab.Routes != nil:
		return fmt.Errorf("%s puts %d stages on %d ranks; the replay needs one stage per rank", family, tab.Stages(), tab.Ranks())
	}
	return nil
}

// validateAsyncFamilies checks the family of every asynchronous entry at
// every stage count (the default is written as none, setDefaults).
func (s *Spec) validateAsyncFamilies(v validator) error {
	for i := range s.Methods {
		m := &s.Methods[i]
		if methodOf(m.Name).Replay == optim.ReplayFlush || m.Family == "" {
			continue
		}
		for _, st := range s.Stages {
			if err := asyncFamilyProblem(m.Family, st); err != nil {
				return v.fail(fmt.Sprintf("S = %d: %v", st, err), "methods", i, "kind")
			}
		}
	}
	return nil
}
