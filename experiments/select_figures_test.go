//go:build quickcheck

package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// bracketGroup is the key of one step-size group as this test forms it
// from the runs table alone: every column but the step, the seed, the
// replicate and the outcome columns.
type bracketGroup struct {
	experiment, objective, method, optimizer, cost, delayModel string
	stages, microbatches, batch, n, d, delta, replicas, h      int32
	budget, noise                                              float64
}

func bracketKey(r results.Run) bracketGroup {
	return bracketGroup{r.Experiment, r.Objective, r.Method, r.Optimizer, r.CostModel, r.DelayModel,
		r.Stages, r.TotalMicrobatches, r.BatchSize, r.N, r.D, r.Delta, r.Replicas, r.LocalSteps, r.TimeBudget, r.Noise}
}

// checkBracketed checks a runs table against what selection_bound claims:
// a selected run at the smallest (largest) step its group ran is marked
// lower (upper), one of a one-step grid fixed, any other unmarked; and,
// with extension on, a run marked lower or upper has a grid grown by the
// whole extend_grid beyond the spec's at that edge, so a bound is only
// reported once the extension is used up. spec maps run ids to the runs
// the figure expanded (for the spec's grid and extend_grid); extension
// runs are not in it. It returns the number of selected groups and of
// bounds.
func checkBracketed(t *testing.T, rows []results.Run, spec map[string]Run) (groups, bounds int) {
	t.Helper()
	steps := map[bracketGroup][]float64{}
	var specRun = map[bracketGroup]Run{}
	for _, r := range rows {
		k := bracketKey(r)
		if !slices.Contains(steps[k], r.StepSize) {
			steps[k] = append(steps[k], r.StepSize)
		}
		if sr, ok := spec[r.RunID]; ok {
			specRun[k] = sr
		}
	}
	done := map[bracketGroup]bool{}
	for _, r := range rows {
		k := bracketKey(r)
		if !r.Selected {
			if r.SelectionBound != "" {
				t.Errorf("run %s is not selected but has selection_bound %q", r.RunID, r.SelectionBound)
			}
			continue
		}
		g := steps[k]
		lo, hi := slices.Min(g), slices.Max(g)
		want := ""
		switch {
		case lo == hi:
			want = results.BoundFixed
		case r.StepSize == lo:
			want = results.BoundLower
		case r.StepSize == hi:
			want = results.BoundUpper
		}
		if r.SelectionBound != want {
			t.Errorf("%s %s S=%d %s: selected γ = %g of grid %g..%g (%d steps) has selection_bound %q, want %q",
				r.Experiment, r.Method, r.Stages, r.Optimizer, r.StepSize, lo, hi, len(g), r.SelectionBound, want)
		}
		if r.Objective != "" && r.Outcome == results.OutcomeOK && !(r.HeldOutLoss > 0) {
			t.Errorf("run %s (%s): selected with held_out_loss %g", r.RunID, r.Objective, r.HeldOutLoss)
		}
		if done[k] {
			continue
		}
		done[k] = true
		groups++
		if want == "" {
			continue
		}
		bounds++
		sr, ok := specRun[k]
		if !ok || sr.ExtendGrid == 0 || want == results.BoundFixed {
			continue
		}
		out := 0
		for _, s := range g {
			if (want == results.BoundLower && s < sr.GridLo) || (want == results.BoundUpper && s > sr.GridHi) {
				out++
			}
		}
		if out != sr.ExtendGrid {
			t.Errorf("%s %s S=%d: marked %s after %d of %d extensions beyond the spec's grid %g..%g",
				r.Experiment, r.Method, r.Stages, want, out, sr.ExtendGrid, sr.GridLo, sr.GridHi)
		}
	}
	return groups, bounds
}

// quickOutEnv names the folder of a quick reproduce of this build
// ("pipelab reproduce --quick --out DIR", what make run writes into out)
// whose tables TestQuickFiguresBracket checks. The test is built only with
// the tag quickcheck (make check-quick, which .ci/run calls after make
// run), so go test ./... neither runs nor skips it: sweeping every quick
// figure takes minutes (437 s of go test ./... at load 16 to 23 when the
// test swept them itself).
const quickOutEnv = "PIPELAB_QUICK_OUT"

// TestQuickFiguresBracket checks the runs table of every quick figure of
// the reproduce in $PIPELAB_QUICK_OUT (swept as reproduce does:
// Figure.Runs, extension on): every run of the figure's spec is there,
// no selected run sits at an edge of its grid unless selection_bound says
// so, and a bound is reported only after the grid grew by extend_grid
// steps (checkBracketed). It logs, per figure, the groups, the bounds and
// the runs the extension added, and the selections that moved from the
// training-loss choice over the spec's grid (movedSelections).
func TestQuickFiguresBracket(t *testing.T) {
	out := os.Getenv(quickOutEnv)
	if out == "" {
		t.Fatalf("needs a quick reproduce: %s=DIR after pipelab reproduce --quick --out DIR (make run, then make check-quick OUT=DIR; .ci/run does both)", quickOutEnv)
	}
	for _, f := range Figures() {
		t.Run(f.Name, func(t *testing.T) {
			runs, err := f.Runs(true)
			if err != nil {
				t.Fatal(err)
			}
			// The convergence runs write the runs table; the figure's
			// other measures (delays, schedules) write tables of their own.
			spec := map[string]Run{}
			for _, r := range runs {
				if r.Objective != "" {
					spec[r.ID] = r
				}
			}
			if len(spec) == 0 {
				return // a figure without runs rows (schedules)
			}
			rows, err := results.ReadRuns(filepath.Join(out, f.Name, results.RunsFile))
			if err != nil {
				t.Fatal(err)
			}
			have, added := map[string]bool{}, map[string]bool{}
			for _, r := range rows {
				have[r.RunID] = true
				if _, ok := spec[r.RunID]; !ok {
					added[r.RunID] = true
				}
			}
			for id := range spec {
				if !have[id] {
					t.Fatalf("%s holds no row of run %s: not a quick reproduce of this build's %s", out, id, f.Name)
				}
			}
			groups, bounds := checkBracketed(t, rows, spec)
			t.Logf("%s: %d convergence runs of the spec, %d added by extension; %d selected groups, %d bounds",
				f.Name, len(spec), len(added), groups, bounds)
			for _, b := range describeBounds(rows) {
				t.Logf("bound: %s", b)
			}
			for _, m := range movedSelections(t, rows, spec) {
				t.Logf("moved: %s", m)
			}
		})
	}
}

// movedSelections lists the groups whose selected step differs from the
// one the rule chose before held-out selection and extension: best-final
// on the final (training) loss over the spec's grid alone, recomputed here
// from the same rows (runs are pure functions of their names, so the
// spec's runs are the runs the old sweep made).
func movedSelections(t *testing.T, rows []results.Run, spec map[string]Run) []string {
	t.Helper()
	var old []results.Run
	for _, r := range rows {
		if _, ok := spec[r.RunID]; ok {
			r.HeldOutLoss = 0
			old = append(old, r)
		}
	}
	if err := SelectSteps(old, nil); err != nil {
		t.Fatal(err)
	}
	was := map[bracketGroup]float64{}
	for _, r := range old {
		if r.Selected {
			was[bracketKey(r)] = r.StepSize
		}
	}
	var out []string
	seen := map[bracketGroup]bool{}
	for _, r := range rows {
		k := bracketKey(r)
		if !r.Selected || seen[k] {
			continue
		}
		seen[k] = true
		if w, ok := was[k]; !ok || w != r.StepSize {
			out = append(out, fmt.Sprintf("%s %s S=%d %s: γ %s -> %s%s", r.Experiment, r.Method, r.Stages, r.Optimizer,
				fmtStep(w), fmtStep(r.StepSize), map[string]string{"": "", results.BoundLower: " (lower bound)",
					results.BoundUpper: " (upper bound)", results.BoundFixed: " (fixed)"}[r.SelectionBound]))
		}
	}
	slices.Sort(out)
	return out
}

// describeBounds lists the bounds of a runs table, for the logs.
func describeBounds(rows []results.Run) []string {
	var out []string
	for _, r := range rows {
		if r.Selected && r.SelectionBound != "" && r.Replicate == 0 {
			out = append(out, fmt.Sprintf("%s %s S=%d %s γ=%g %s", r.Experiment, r.Method, r.Stages, r.Optimizer, r.StepSize, r.SelectionBound))
		}
	}
	return out
}
