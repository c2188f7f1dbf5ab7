package optim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
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

// MatchBudget returns the smallest n ≥ 1 with duration(n) ≥ budget;
// duration must not decrease with n. Any search finds that same n (the
// reference doubles n, then bisects: docs/reference.md §1.6); this one
// guesses from the durations it has seen, as pipeline timelines last
// about a fixed time per microbatch after a fill: it extrapolates from
// the last two counts short of the budget until one reaches it (at least
// doubling after a guess fell short), then
// interpolates between the closest counts either side, bisecting instead
// whenever a guess failed to halve the interval. A duration linear in n
// takes four calls where doubling and bisecting take about 2·log₂ n,
// and no duration takes more than about twice as many.
func MatchBudget(budget float64, duration func(n int) (float64, error)) (Match, error) {
	if !(budget > 0) {
		return Match{}, fmt.Errorf("%w: time budget %g must be positive", ErrSettings, budget)
	}
	const limit = 1 << 40
	// lo falls short of the budget (0: nothing run), hi reaches it (0:
	// none found yet); prev is the count short of it before lo.
	var lo, hi, prev int
	var loTime, hiTime, prevTime float64
	bisect := false
	short := 0 // counts probed that fell short
	for n := 1; ; {
		t, err := duration(n)
		if err != nil {
			return Match{}, err
		}
		width := hi - lo
		if t >= budget {
			hi, hiTime = n, t
		} else {
			prev, prevTime, lo, loTime = lo, loTime, n, t
		}
		if hi == 0 {
			if lo >= limit {
				return Match{}, fmt.Errorf("%w: no microbatch count up to %d reaches the budget %g", ErrSettings, lo, budget)
			}
			n = extrapolate(prev, prevTime, lo, loTime, budget)
			if short++; short > 2 {
				// After a guess fell short, the next at least doubles.
				n = max(n, 2*lo)
			}
			n = min(n, limit)
			continue
		}
		if hi-lo <= 1 {
			return Match{Microbatches: hi, Time: hiTime, Overshoot: hiTime - budget}, nil
		}
		// A guess that did not halve the bracket is followed by a bisection.
		if width > 0 && !bisect && 2*(hi-lo) > width {
			bisect = true
			n = lo + (hi-lo)/2
			continue
		}
		bisect = false
		n = interpolate(lo, loTime, hi, hiTime, budget)
	}
}

// extrapolate guesses the count that reaches budget from two counts a < b
// short of it, along the line through their durations, at least doubling
// b when the line does not climb (or a is 0, nothing run).
func extrapolate(a int, aTime float64, b int, bTime, budget float64) int {
	if a == 0 || !(bTime > aTime) {
		return 2 * b
	}
	step := (budget - bTime) * float64(b-a) / (bTime - aTime)
	if !(step < float64(1<<40)) {
		return 1 << 40
	}
	return b + max(1, int(math.Ceil(step)))
}

// interpolate guesses the count between lo and hi (hi - lo ≥ 2) that
// first reaches budget, along the line through their durations.
func interpolate(lo int, loTime float64, hi int, hiTime, budget float64) int {
	g := lo + int(math.Ceil((budget-loTime)*float64(hi-lo)/(hiTime-loTime)))
	return min(max(g, lo+1), hi-1)
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
