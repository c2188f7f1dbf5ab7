package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/results"
)

// Step-size selection rules (docs/reference.md §1.7), optim's BestFinal,
// Stable and FastestToTarget by name. BestFinal and Stable rank by the
// held-out loss where the runs have one (docs/methods.md, "Selection");
// BestFinalTraining is BestFinal on the final training loss always, for a
// figure about optimization alone: the rule of the presets that reproduce
// the PipeDream convergence paper's protocol and its logistic regime.
// FastestToTarget ranks by the time to the spec's target loss, for a
// figure that reports it (remedies). results.SelectionMetric names the
// metric each rule selects on, which a figure's claims table reports.
const (
	BestFinal         = "best-final"
	Stable            = "stable"
	BestFinalTraining = results.RuleBestFinalTraining
	FastestToTarget   = results.RuleFastestToTarget
)

// groupKey is everything that makes runs comparable except the step size
// and the seed: the runs of one curve of a figure, over the grid.
type groupKey struct {
	experiment, objective, method, cost string
	optimizer, delayModel, settings     string
	stages, microbatches, batch, n, d   int32
	delta, replicas, localSteps         int32
	budget, noise                       float64
}

func keyOf(r *results.Run) groupKey {
	return groupKey{r.Experiment, r.Objective, r.Method, r.CostModel, r.Optimizer, r.DelayModel, r.MethodSettings, r.Stages, r.TotalMicrobatches, r.BatchSize,
		r.N, r.D, r.Delta, r.Replicas, r.LocalSteps, r.TimeBudget, r.Noise}
}

func ruleNamed(name string) (optim.Rule, error) {
	switch name {
	case BestFinal, BestFinalTraining:
		return optim.BestFinal{}, nil
	case Stable:
		return optim.Stable{}, nil
	case FastestToTarget:
		return optim.FastestToTarget{}, nil
	}
	return nil, fmt.Errorf("experiments: unknown selection rule %q (known: %s, %s, %s, %s)", name, BestFinal, Stable, BestFinalTraining, FastestToTarget)
}

// SelectSteps sets Selected on the runs whose step size the group's rule
// (Run.SelectionRule, BestFinal when empty) chooses, for every group of
// runs that differ only in step size and seed, and SelectionBound on them
// when that step is the smallest or the largest of the group's grid (or
// the grid has one step). The rules rank by the held-out loss
// (Run.HeldOutLoss, docs/methods.md, "Selection") in a group whose runs
// have one, by the final loss otherwise. A group in which every step size
// diverged (or none passes the rule) has no selected run. The curves give
// the rules that judge a curve's shape their records.
func SelectSteps(runs []results.Run, curves []results.CurvePoint) error {
	groups, err := chooseSteps(runs, curves)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if g.choice < 0 {
			continue
		}
		bound := g.bound()
		for _, i := range g.runs {
			if runs[i].StepSize == g.steps[g.choice] {
				runs[i].Selected, runs[i].SelectionBound = true, bound
			}
		}
	}
	return nil
}

// stepGroup is one group of runs over a grid and the rule's choice.
type stepGroup struct {
	key groupKey
	// runs are the rows' indices, by step then seed.
	runs []int
	// steps is the group's grid, ascending: every step it has a run at,
	// diverged or not.
	steps []float64
	// choice is the index in steps of the chosen step, -1 for none.
	choice int
	// diverged reports that every step has a diverged run (too large a
	// grid: the group's choice is -1).
	diverged bool
}

// bound is the SelectionBound of the group's chosen step.
func (g stepGroup) bound() string {
	switch {
	case len(g.steps) == 1:
		return results.BoundFixed
	case g.choice == 0:
		return results.BoundLower
	case g.choice == len(g.steps)-1:
		return results.BoundUpper
	}
	return ""
}

// chooseSteps groups the runs, clears their Selected and SelectionBound,
// fills in their rule and applies it to each group, in the order of the
// groups' first runs.
func chooseSteps(runs []results.Run, curves []results.CurvePoint) ([]stepGroup, error) {
	records := map[string][]optim.Record{}
	for _, c := range curves {
		records[c.RunID] = append(records[c.RunID], optim.Record{Time: c.Time, Updates: int(c.BlockUpdates), Loss: c.Loss})
	}
	byKey := map[groupKey]int{}
	var groups []stepGroup
	for i := range runs {
		if runs[i].SelectionRule == "" {
			runs[i].SelectionRule = BestFinal
		}
		runs[i].Selected, runs[i].SelectionBound = false, ""
		k := keyOf(&runs[i])
		g, ok := byKey[k]
		if !ok {
			g = len(groups)
			byKey[k] = g
			groups = append(groups, stepGroup{key: k})
		}
		groups[g].runs = append(groups[g].runs, i)
	}
	for gi := range groups {
		if err := groups[gi].choose(runs, records); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

// choose applies the group's rule to its runs.
func (g *stepGroup) choose(runs []results.Run, records map[string][]optim.Record) error {
	idx := g.runs
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
	heldOut := first.SelectionRule != BestFinalTraining && slices.ContainsFunc(idx, func(i int) bool { return hasHeldOut(&runs[i]) })
	var grid [][]*optim.Result
	g.steps, g.choice = nil, -1
	diverged := map[int]bool{}
	for _, i := range idx {
		r := &runs[i]
		if r.SelectionRule != first.SelectionRule {
			return fmt.Errorf("experiments: runs %s and %s of one group name different rules %q and %q",
				first.RunID, r.RunID, first.SelectionRule, r.SelectionRule)
		}
		recs := slices.Clone(records[r.RunID])
		slices.SortFunc(recs, func(a, b optim.Record) int { return cmp.Compare(a.Updates, b.Updates) })
		res := &optim.Result{StepSize: r.StepSize, Seed: r.Seed, FinalLoss: r.FinalLoss, Diverged: r.Diverged(), Records: recs,
			TimeToTarget: r.TimeToTarget}
		if heldOut {
			// A run without a held-out loss in a group that has them
			// (a held-out loss that overflowed) is not ranked.
			res.FinalLoss = r.HeldOutLoss
			res.Diverged = res.Diverged || !hasHeldOut(r)
		}
		if n := len(g.steps); n == 0 || g.steps[n-1] != r.StepSize {
			g.steps = append(g.steps, r.StepSize)
			grid = append(grid, nil)
		}
		grid[len(grid)-1] = append(grid[len(grid)-1], res)
		if r.Diverged() {
			diverged[len(g.steps)-1] = true
		}
	}
	g.diverged = len(diverged) == len(g.steps)
	choice, err := rule.Choose(g.steps, grid)
	if errors.Is(err, optim.ErrNoStepSize) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("experiments: choosing the step size of run %s's group: %w", first.RunID, err)
	}
	g.choice = choice.Index
	return nil
}

// hasHeldOut reports whether the run has a held-out loss: finite, and not
// the 0 of a table written before the column (a held-out loss of exactly
// 0 would need the exact optimum).
func hasHeldOut(r *results.Run) bool {
	return r.HeldOutLoss != 0 && !math.IsNaN(r.HeldOutLoss) && !math.IsInf(r.HeldOutLoss, 0)
}
