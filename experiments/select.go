package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"pipelab/optim"
	"pipelab/results"
)

// Step-size selection rules (docs/reference.md §1.7), optim's BestFinal and
// Stable by name.
const (
	BestFinal = "best-final"
	Stable    = "stable"
)

// groupKey is everything that makes runs comparable except the step size
// and the seed: the runs of one curve of a figure, over the grid.
type groupKey struct {
	experiment, objective, method, cost string
	optimizer, delayModel               string
	stages, microbatches, batch, n, d   int32
	delta, replicas, localSteps         int32
	budget, noise                       float64
}

func keyOf(r *results.Run) groupKey {
	return groupKey{r.Experiment, r.Objective, r.Method, r.CostModel, r.Optimizer, r.DelayModel, r.Stages, r.Microbatches, r.BatchSize,
		r.N, r.D, r.Delta, r.Replicas, r.LocalSteps, r.TimeBudget, r.Noise}
}

func ruleNamed(name string) (optim.Rule, error) {
	switch name {
	case BestFinal:
		return optim.BestFinal{}, nil
	case Stable:
		return optim.Stable{}, nil
	}
	return nil, fmt.Errorf("experiments: unknown selection rule %q (known: %s, %s)", name, BestFinal, Stable)
}

// SelectSteps sets Selected on the runs whose step size the group's rule
// (Run.SelectionRule, BestFinal when empty) chooses, for every group of
// runs that differ only in step size and seed. A group in which every step
// size diverged (or none passes the rule) has no selected run. The curves
// give the rules that judge a curve's shape their records.
func SelectSteps(runs []results.Run, curves []results.CurvePoint) error {
	records := map[string][]optim.Record{}
	for _, c := range curves {
		records[c.RunID] = append(records[c.RunID], optim.Record{Time: c.Time, Updates: int(c.BlockUpdates), Loss: c.Loss})
	}
	groups := map[groupKey][]int{}
	for i := range runs {
		if runs[i].SelectionRule == "" {
			runs[i].SelectionRule = BestFinal
		}
		runs[i].Selected = false
		k := keyOf(&runs[i])
		groups[k] = append(groups[k], i)
	}
	for _, idx := range groups {
		first := &runs[idx[0]]
		rule, err := ruleNamed(first.SelectionRule)
		if err != nil {
			return fmt.Errorf("experiments: run %s: %w", first.RunID, err)
		}
		// Runs in a stable order (step, then seed) so the rule's input
		// does not depend on the order of the rows.
		slices.SortFunc(idx, func(a, b int) int {
			if c := cmp.Compare(runs[a].StepSize, runs[b].StepSize); c != 0 {
				return c
			}
			return cmp.Compare(runs[a].Seed, runs[b].Seed)
		})
		var (
			steps []float64
			grid  [][]*optim.Result
		)
		for _, i := range idx {
			r := &runs[i]
			if r.SelectionRule != first.SelectionRule {
				return fmt.Errorf("experiments: runs %s and %s of one group name different rules %q and %q",
					first.RunID, r.RunID, first.SelectionRule, r.SelectionRule)
			}
			recs := slices.Clone(records[r.RunID])
			slices.SortFunc(recs, func(a, b optim.Record) int { return cmp.Compare(a.Updates, b.Updates) })
			res := &optim.Result{StepSize: r.StepSize, Seed: r.Seed, FinalLoss: r.FinalLoss, Diverged: r.Diverged(), Records: recs}
			if n := len(steps); n == 0 || steps[n-1] != r.StepSize {
				steps = append(steps, r.StepSize)
				grid = append(grid, nil)
			}
			grid[len(grid)-1] = append(grid[len(grid)-1], res)
		}
		choice, err := rule.Choose(steps, grid)
		if errors.Is(err, optim.ErrNoStepSize) {
			continue
		}
		if err != nil {
			return fmt.Errorf("experiments: choosing the step size of run %s's group: %w", first.RunID, err)
		}
		for _, i := range idx {
			runs[i].Selected = runs[i].StepSize == choice.StepSize
		}
	}
	return nil
}
