package optim

import (
	"fmt"

	"pipelab/pipeline"
)

// Match is the result of equal-time matching: the smallest microbatch
// count whose timeline reaches the budget, how long that timeline takes,
// and by how much it overshoots the budget (docs/reference.md §1.6: the
// reference lets runs overshoot and does not say so; a fair comparison
// reports it).
type Match struct {
	Microbatches int
	Time         float64
	Overshoot    float64
}

// MatchBudget returns the smallest n ≥ 1 with duration(n) ≥ budget,
// found by doubling n and then a binary search between the last two
// doublings; duration must not decrease with n.
func MatchBudget(budget float64, duration func(n int) (float64, error)) (Match, error) {
	if !(budget > 0) {
		return Match{}, fmt.Errorf("%w: time budget %g must be positive", ErrSettings, budget)
	}
	const limit = 1 << 40
	lo, hi := 0, 1 // duration(lo) < budget ≤ duration(hi); lo = 0 stands for nothing run
	hiTime, err := duration(hi)
	if err != nil {
		return Match{}, err
	}
	for hiTime < budget {
		if hi >= limit {
			return Match{}, fmt.Errorf("%w: no microbatch count up to %d reaches the budget %g", ErrSettings, hi, budget)
		}
		lo, hi = hi, 2*hi
		if hiTime, err = duration(hi); err != nil {
			return Match{}, err
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		t, err := duration(mid)
		if err != nil {
			return Match{}, err
		}
		if t >= budget {
			hi, hiTime = mid, t
		} else {
			lo = mid
		}
	}
	return Match{Microbatches: hi, Time: hiTime, Overshoot: hiTime - budget}, nil
}

// GridDuration returns the duration function of a generated schedule
// family on the unit-time grid: the end of sim.FromGrid of the family's
// table for shape with n microbatches, read directly from the table as the
// last occupied column plus one. It suits families that place every action
// in the step it runs (pipedream, localsgd).
func GridDuration(family string, shape pipeline.Shape) func(n int) (float64, error) {
	return func(n int) (float64, error) {
		sh := shape
		sh.Microbatches = n
		t, err := pipeline.Generate(family, sh)
		if err != nil {
			return 0, err
		}
		return float64(gridEnd(t)), nil
	}
}

// gridEnd returns the column after the last non-bubble cell of any row.
func gridEnd(t *pipeline.Table) int {
	end := 0
	for _, row := range t.Rows {
		for c := len(row) - 1; c >= end; c-- {
			if !row[c].IsBubble() {
				end = c + 1
				break
			}
		}
	}
	return end
}
