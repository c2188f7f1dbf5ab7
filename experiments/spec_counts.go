package experiments

import (
	"fmt"
	"slices"
)

// The keys that count a measure's pipeline and its microbatches, in the
// naming convention (docs/cli.md, "Ranks, stages, microbatches"): stages S
// and the microbatches N over a run (total_microbatches, or
// total_microbatches_per_stage for N = k·S) for the measures that train or
// replay, ranks P and the microbatches M of one iteration for the
// schedules measure, which compares schedules as pipelab compare does.

// countKey is what a measure counts its pipeline and its microbatches by.
type countKey struct {
	pipeline     string   // stages or ranks
	microbatches []string // the microbatch keys it takes
}

var countKeys = map[string]countKey{
	Convergence:   {"stages", []string{"total_microbatches"}},
	DelayStats:    {"stages", []string{"total_microbatches", "total_microbatches_per_stage"}},
	DelayProfiles: {"stages", []string{"total_microbatches_per_stage"}},
	Schedules:     {"ranks", []string{"microbatches"}},
}

// countKeyOrder is the order the keys are checked in, the spec's.
var countKeyOrder = []string{"stages", "ranks", "total_microbatches", "total_microbatches_per_stage", "microbatches"}

// checkCountKeys refuses a count key the spec's measure does not take,
// naming the one it does (a spec written before the convention used
// stages for P and microbatches for N), and checks the pipeline counts:
// at least one, each at least 2.
func (s *Spec) checkCountKeys(v validator) error {
	takes := countKeys[s.Measure]
	set := map[string]bool{"stages": len(s.Stages) > 0, "ranks": len(s.Ranks) > 0, "microbatches": len(s.Microbatches) > 0,
		"total_microbatches": len(s.TotalMicrobatches) > 0, "total_microbatches_per_stage": s.TotalMicrobatchesPerStage != 0}
	for _, k := range countKeyOrder {
		if set[k] && k != takes.pipeline && !slices.Contains(takes.microbatches, k) {
			return v.fail("does not apply to measure "+s.Measure+takes.hint(k), k)
		}
	}
	counts, noun := s.Stages, "stage"
	if takes.pipeline == "ranks" {
		counts, noun = s.Ranks, "rank"
	}
	if len(counts) == 0 {
		return v.fail(fmt.Sprintf("no %s counts given", noun), takes.pipeline)
	}
	for i, c := range counts {
		if c < 2 {
			return v.fail(fmt.Sprintf("%s count %d is below 2", noun, c), takes.pipeline, i)
		}
	}
	return nil
}

// hint names the key of the measure that takes the place of key, and
// what it counts.
func (c countKey) hint(key string) string {
	switch {
	case key == "stages" || key == "ranks":
		if c.pipeline == "ranks" {
			return didYouMean("ranks", "it lays out P ranks, each holding V chunks of its S = P·V stages")
		}
		return didYouMean("stages", "its runs put one of S stages on each rank")
	case c.microbatches[0] == "microbatches":
		return didYouMean("microbatches", "the M of one iteration a schedule is laid out for, as pipelab compare --microbatches")
	}
	return didYouMean(c.microbatches[0], "N, the microbatches over a run; microbatches is the M of one iteration")
}
