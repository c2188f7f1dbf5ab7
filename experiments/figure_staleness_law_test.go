package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// gridPoints counts the steps of a pow2 grid.
func gridPoints(g Grid) int { return g.Pow2[1] - g.Pow2[0] + 1 }

// The staleness-law specs validate and expand in both sizes into the runs
// their grids multiply out to: per spec, stage counts × K × steps × two
// methods × seeds, where a spec that varies K at one S leaves out the K of
// its experiment's first spec (whose runs that spec has); PipeDream and
// sync share one grid, and sync takes one microbatch per update (K
// updates, as PipeDream's).
func TestStalenessLawSpecs(t *testing.T) {
	f, err := LookupFigure("staleness-law")
	if err != nil {
		t.Fatal(err)
	}
	for _, quick := range []bool{true, false} {
		specs, err := f.Presets(quick)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := f.Runs(quick)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		first := map[string]*Spec{}
		for _, s := range specs {
			if len(s.Methods) != 2 || s.Methods[0].Name != "pipedream" || s.Methods[1].Name != "sync" ||
				!reflect.DeepEqual(s.Methods[0].Steps, s.Methods[1].Steps) {
				t.Errorf("quick %v: %s runs %+v, want pipedream and sync on one grid", quick, s.Name, s.Methods)
				continue
			}
			want += len(s.Stages) * len(s.TotalMicrobatches) * gridPoints(s.Methods[0].Steps) * 2 * s.Seeds
			if prev, ok := first[s.Name]; !ok {
				first[s.Name] = s
			} else if len(s.Stages) != 1 || slices.ContainsFunc(s.TotalMicrobatches, func(k int) bool { return slices.Contains(prev.TotalMicrobatches, k) }) {
				t.Errorf("quick %v: %s varies K = %v at S = %v; want one S and none of K = %v", quick, s.Name, s.TotalMicrobatches, s.Stages, prev.TotalMicrobatches)
			}
		}
		if len(runs) != want {
			t.Errorf("quick %v: %d runs, want %d", quick, len(runs), want)
		}
		for _, r := range runs {
			if r.Method == "sync" && r.Microbatches != 1 {
				t.Errorf("quick %v: sync run %s averages %d microbatches per update, want 1", quick, r.Name, r.Microbatches)
			}
			if !strings.HasPrefix(r.Spec, lawPrefix) {
				t.Errorf("quick %v: run of experiment %q, not a law experiment", quick, r.Spec)
			}
		}
	}
}

// The optimizers-under-delay spec validates and expands into optimizers ×
// methods (pipedream, 2bw, ef, sync) × three
// steps × S × seeds runs, every one on the LM, sync with one microbatch
// per update as PipeDream.
func TestOptimizersUnderDelaySpecs(t *testing.T) {
	f, err := LookupFigure("optimizers-under-delay")
	if err != nil {
		t.Fatal(err)
	}
	for _, quick := range []bool{true, false} {
		runs, err := f.Runs(quick)
		if err != nil {
			t.Fatal(err)
		}
		s := presetSpec(t, f, quick, "optimizers-under-delay")
		methods := map[string][]string{}
		for _, m := range s.Methods {
			methods[m.Optimizer.Name] = append(methods[m.Optimizer.Name], m.Name)
			if gridPoints(m.Steps) != 3 {
				t.Errorf("quick %v: %s with %s on %d steps, want 3", quick, m.Name, m.Optimizer.Name, gridPoints(m.Steps))
			}
		}
		// ef at λ = 1 only: λ = 0.5 was cut for the budget at K = 4000
		// (figures/optimizers-under-delay.yaml).
		perOpt := []string{"pipedream", "2bw", "ef", "sync"}
		for o, ms := range methods {
			if !slices.Equal(ms, perOpt) {
				t.Errorf("quick %v: %s runs %v, want %v", quick, o, ms, perOpt)
			}
		}
		for _, m := range s.Methods {
			if m.Name == "sync" && m.Microbatches != 1 {
				t.Errorf("quick %v: sync with %s takes %d microbatches per update, want 1 (as PipeDream)", quick, m.Optimizer.Name, m.Microbatches)
			}
		}
		want := len(methods) * len(perOpt) * 3 * len(s.Stages) * s.Seeds
		if len(runs) != want {
			t.Errorf("quick %v: %d runs, want %d", quick, len(runs), want)
		}
		opts := map[string]bool{}
		for _, r := range runs {
			opts[string(r.Optimizer.Algorithm)] = true
			if r.Objective != "charlm" {
				t.Errorf("quick %v: a run on %s", quick, r.Objective)
			}
		}
		for _, l := range optimizersLabels {
			if o := strings.ToLower(l); !opts[o] {
				t.Errorf("quick %v: no %s runs", quick, o)
			}
		}
	}
}

// sweepAndPlot runs the spec's runs and plots the directory.
func sweepAndPlot(t *testing.T, specs ...*Spec) (string, []string) {
	t.Helper()
	var runs []Run
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Expand() {
			r.Index = len(runs)
			runs = append(runs, r)
		}
	}
	dir := t.TempDir()
	if _, err := (&testRunner{Dir: dir, Jobs: 2}).Sweep(context.Background(), runs); err != nil {
		t.Fatal(err)
	}
	files, err := PlotDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, files
}

// The quick figure's quadratic law spec, cut to S = 2, 4, 8, K = 200 and
// four steps, runs end to end: a gap row per S (and one per K at S = 16
// where it is varied: none here), finite gaps, a fits row over S
// predicting 4, and the staleness-law plot; no curve plots for it.
func TestStalenessLawEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 48 quadratic runs")
	}
	s := presetSpec(t, figureStalenessLaw, true, "staleness-law-quadratic") // its first spec: over S
	s.Stages, s.TotalMicrobatches = []int{2, 4, 8}, []int{200}
	for i := range s.Methods {
		s.Methods[i].Steps = Grid{Pow2: []int{-8, -5}}
	}
	s.ExtendGrid = nil // the four steps as written
	dir, files := sweepAndPlot(t, s)
	gaps, err := results.ReadGaps(filepath.Join(dir, results.GapsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != len(s.Stages) {
		t.Fatalf("%d gap rows, want one per S (%d)", len(gaps), len(s.Stages))
	}
	for _, g := range gaps {
		if math.IsNaN(g.Mean) || math.IsInf(g.Mean, 0) || g.Replicates != 2 || g.Method != "pipedream" || g.Baseline != "sync" {
			t.Errorf("S = %d: %+v", g.Stages, g)
		}
		if math.Abs(g.Mean-(g.MethodLoss-g.BaselineLoss)) > 1e-12 {
			t.Errorf("S = %d: gap %g is not %g − %g", g.Stages, g.Mean, g.MethodLoss, g.BaselineLoss)
		}
	}
	fits, err := results.ReadFits(filepath.Join(dir, results.FitsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 1 || fits[0].Variable != results.FitStages || fits[0].Predicted != 4 || fits[0].Fixed != 200 {
		t.Errorf("fits %+v, want one over S at K = 200", fits)
	}
	if !slices.Contains(files, filepath.Join(dir, "staleness-law")) || slices.ContainsFunc(files, func(f string) bool { return strings.Contains(f, "loss-vs") }) {
		t.Errorf("plots %v, want staleness-law and no curve plots", files)
	}
	if _, err := os.Stat(filepath.Join(dir, "staleness-law.png")); err != nil {
		t.Error(err)
	}
}

// The optimizers figure cut to S = 4, K = 40, one step per method and one
// seed runs end to end: a validation gap row per optimizer and
// non-baseline method (4 × 3), every one finite.
func TestOptimizersUnderDelayEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 16 LM runs")
	}
	s := presetSpec(t, figureOptimizersUnderDelay, true, "optimizers-under-delay")
	s.Stages, s.TotalMicrobatches = []int{4}, []int{40}
	optimizers := map[string]bool{}
	for i := range s.Methods {
		lo := s.Methods[i].Steps.Pow2[0]
		s.Methods[i].Steps = Grid{Pow2: []int{lo + 1, lo + 1}}
		optimizers[s.Methods[i].Optimizer.Name] = true
	}
	s.ExtendGrid = nil
	dir, files := sweepAndPlot(t, s)
	gaps, err := results.ReadGaps(filepath.Join(dir, results.GapsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != len(optimizers)*3 {
		t.Fatalf("%d gap rows, want %d", len(gaps), len(optimizers)*3)
	}
	for _, g := range gaps {
		if math.IsNaN(g.Mean) || math.IsInf(g.Mean, 0) || g.Loss != results.LossValidation || g.Replicates != 1 {
			t.Errorf("%s %s: %+v", g.Optimizer, g.Method, g)
		}
	}
	if !slices.Contains(files, filepath.Join(dir, "optimizers-under-delay")) {
		t.Errorf("plots %v, want optimizers-under-delay", files)
	}
}
