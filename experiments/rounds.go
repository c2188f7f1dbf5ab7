package experiments

import (
	"fmt"
	"slices"

	"github.com/pipelab/pipelab/results"
)

// CheckUniqueIDs refuses runs two of which share an id: a sweep records
// and a merge joins runs by id.
func CheckUniqueIDs(runs []Run) error {
	seen := make(map[string]string, len(runs))
	for _, r := range runs {
		if prev, dup := seen[r.ID]; dup {
			return fmt.Errorf("experiments: two runs share id %s: %q and %q", r.ID, prev, r.Name)
		}
		seen[r.ID] = r.Name
	}
	return nil
}

// Extends reports whether a sweep of runs may grow their step-size grids
// (some run has ExtendGrid): such a sweep runs in rounds (NextRound), and
// cannot be sharded.
func Extends(runs []Run) bool {
	return slices.ContainsFunc(runs, func(r Run) bool { return r.ExtendGrid > 0 })
}

// NextRound returns the runs of a sweep's next round: after round (0 the
// first) has computed every run of all into ds, gathered, the runs that
// extend the grids whose selected step is at an edge (extendGrids),
// numbered after all and checked for distinct ids. None means the sweep is
// done: no run extends its grid, every group brackets its choice or has
// used up its extensions, or round has passed the bound a group's growth
// by at most MaxExtendGrid steps an edge sets.
func NextRound(all []Run, ds *results.Tables, round int) ([]Run, error) {
	if !Extends(all) || round > 2*MaxExtendGrid {
		return nil, nil
	}
	more, err := extendGrids(all, slices.Clone(ds.Runs), ds.Curves)
	if err != nil || len(more) == 0 {
		return nil, err
	}
	for i := range more {
		more[i].Index = len(all) + i
	}
	if err := CheckUniqueIDs(append(slices.Clone(all), more...)); err != nil {
		return nil, err
	}
	return more, nil
}
