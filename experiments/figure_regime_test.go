package experiments

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"pipelab/results"
)

// TestRegimeQuickIndependentOfJobs runs the quick regime preset with one
// worker and with two: the same tables (wall-clock seconds aside), the
// curves byte for byte, and one map cell per S, n and σ with every
// replicate paired.
func TestRegimeQuickIndependentOfJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick regime preset twice")
	}
	f, err := LookupFigure("regime")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs(true)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	one, two := filepath.Join(tmp, "j1"), filepath.Join(tmp, "j2")
	for dir, jobs := range map[string]int{one: 1, two: 2} {
		rn := Runner{Dir: dir, Jobs: jobs, Execute: Execute}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
	}
	want := readDeterministic(t, one)
	if got := readDeterministic(t, two); !reflect.DeepEqual(got, want) {
		t.Error("--jobs 2 tables differ from --jobs 1")
	}
	sameFile(t, filepath.Join(one, results.CurvesFile), filepath.Join(two, results.CurvesFile))
	cells, err := results.RegimeCells(want.Runs)
	if err != nil {
		t.Fatal(err)
	}
	// The quick map: S ∈ {2, 8} × n ∈ {50, 200, 1000} × σ ∈ {0, 0.5},
	// two replicates each.
	if len(cells) != 2*3*2 {
		t.Errorf("%d cells, want 12", len(cells))
	}
	for _, c := range cells {
		if len(c.Replicates) != 2 {
			t.Errorf("S = %d, n = %d, σ = %g: %d replicates paired, want 2", c.Stages, c.N, c.Noise, len(c.Replicates))
		}
	}
}
