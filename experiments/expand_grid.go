package experiments

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/pipelab/pipelab/results"
)

// Grids that bracket (docs/methods.md, "Selection"). A group of runs
// (SelectSteps) whose chosen step is the smallest or the largest of its
// grid, or whose every step diverged, did not bracket its best step: the
// sweep then runs the group at one more step beyond that edge (below it
// when every step diverged), the grid's own ratio away (2 for a grid of
// powers of two), and selects again, until the choice is inside the grid
// or the grid has grown by ExtendGrid steps beyond the spec's at that
// edge. A choice still at an edge then is a bound, as the runs table's
// selection_bound says. A grid of one step is a fixed step, not a search:
// it is never extended.
//
// The new runs are the edge runs with another step: their names, ids and
// seeds follow from their parameters as every run's do, so that they are
// the runs a spec listing that step would have had, and a sweep killed
// and run again makes the same choices from the same records, the same
// runs, and identical files.

// extendGrids returns the runs that grow the grids of the groups of rows
// (the rows of the runs all, gathered) whose choice is at an edge, ordered
// by name; none when every group brackets its choice or has used up its
// extensions. It selects on rows, which it changes as SelectSteps does.
func extendGrids(all []Run, rows []results.Run, curves []results.CurvePoint) ([]Run, error) {
	byID := make(map[string]*Run, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	groups, err := chooseSteps(rows, curves)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Run
	for _, g := range groups {
		first := byID[rows[g.runs[0]].RunID]
		if first == nil || first.ExtendGrid == 0 || len(g.steps) < 2 {
			continue
		}
		var edge, next float64
		switch n := len(g.steps); {
		case g.choice == 0 || (g.choice < 0 && g.diverged):
			if beyond(g.steps, func(s float64) bool { return s < first.GridLo }) >= first.ExtendGrid {
				continue
			}
			edge, next = g.steps[0], stepBeyond(g.steps[0], g.steps[1]/g.steps[0], -1)
		case g.choice == n-1:
			if beyond(g.steps, func(s float64) bool { return s > first.GridHi }) >= first.ExtendGrid {
				continue
			}
			edge, next = g.steps[n-1], stepBeyond(g.steps[n-1], g.steps[n-1]/g.steps[n-2], 1)
		default:
			continue
		}
		if !(next > 0) || math.IsInf(next, 0) || slices.Contains(g.steps, next) {
			continue
		}
		for _, i := range g.runs {
			src := byID[rows[i].RunID]
			if rows[i].StepSize != edge || src == nil {
				continue
			}
			r := *src
			r.Step = next
			r.name()
			if !seen[r.ID] && byID[r.ID] == nil {
				seen[r.ID] = true
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b Run) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// beyond counts the steps of a grid that lie outside the spec's.
func beyond(steps []float64, outside func(float64) bool) int {
	n := 0
	for _, s := range steps {
		if outside(s) {
			n++
		}
	}
	return n
}

// stepBeyond is the step one ratio beyond edge: below it (dir -1) or above
// (dir 1). A ratio that is a power of two keeps the step exact; another is
// rounded to 12 significant digits, so that 1e-3 below 1e-2 is 1e-4 and not
// its neighbour in floating point.
func stepBeyond(edge, ratio float64, dir int) float64 {
	next := edge * ratio
	if dir < 0 {
		next = edge / ratio
	}
	if frac, _ := math.Frexp(ratio); frac == 0.5 {
		return next
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(next, 'g', 12, 64), 64)
	if err != nil {
		return next
	}
	return v
}
