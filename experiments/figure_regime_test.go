package experiments

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
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
	one, two := sweepWithOneAndTwoJobs(t, runs)
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

// TestRegimeMechanism checks the account docs/figures.md gives of the
// regime map on the map's own problem (logistic, d = 512, batch 10), with
// N = 1300 microbatches for every run. To first order LocalSGD with R
// replicas at step γ moves the replicas' mean like SGD at γ/R with the
// same noise per microbatch (each microbatch moves the mean by γ/R times
// one noisy gradient); PipeDream at S = 2 (a delay of one update) stands
// in for that SGD. The first order holds where n > d: LocalSGD (R = 32,
// γ = 2^-2) and SGD at 2^-7 end within 25% of each other at σ = 0.5. It
// fails where n < d (the data separable, f* → 0): there noise raises
// SGD's loss, as its floor ∝ γσ² predicts, but lowers LocalSGD's, whose
// replicas take gradients at points the noise spreads apart while the
// averaged mean does not carry that noise; LocalSGD then ends at least 4
// times below SGD.
func TestRegimeMechanism(t *testing.T) {
	final := func(n int, sigma float64, method string, stages int, step float64) float64 {
		t.Helper()
		src := fmt.Sprintf(`seed: 1
objectives: [logistic]
n: %d
d: 512
batch_size: 10
noise: [%g]
stages: [%d]
total_microbatches: [1300]
methods:
  - {name: %s, local_steps: [5], step_sizes: {values: [%g]}}
`, n, sigma, stages, method, step)
		if method != "localsgd" {
			src = strings.Replace(src, "local_steps: [5], ", "", 1)
		}
		_, outs := execute(t, src)
		return outs[0].Runs[0].FinalLoss
	}
	local := func(n int, sigma float64) float64 { return final(n, sigma, "localsgd", 32, 0.25) }
	sgd := func(n int, sigma float64) float64 { return final(n, sigma, "pipedream", 2, 0.25/32) }

	l, s := local(1000, 0.5), sgd(1000, 0.5)
	t.Logf("n = 1000, σ = 0.5: LocalSGD %.4g, SGD at γ/R %.4g", l, s)
	if math.Abs(l/s-1) > 0.25 {
		t.Errorf("n = 1000, σ = 0.5: LocalSGD %g and SGD at γ/R %g differ by more than 25%%", l, s)
	}
	l0, l1 := local(50, 0), local(50, 0.5)
	s0, s1 := sgd(50, 0), sgd(50, 0.5)
	t.Logf("n = 50: σ = 0: LocalSGD %.4g, SGD %.4g; σ = 0.5: LocalSGD %.4g, SGD %.4g", l0, s0, l1, s1)
	if !(s1 > s0) || !(l1 < l0) || !(4*l1 < s1) {
		t.Errorf("n = 50: SGD %g → %g and LocalSGD %g → %g from σ = 0 to 0.5; want SGD up, LocalSGD down and 4 times below SGD",
			s0, s1, l0, l1)
	}
}

// sweepWithOneAndTwoJobs sweeps runs into two folders, with one worker and
// with two, and returns the folders, for the tests that compare them.
func sweepWithOneAndTwoJobs(t *testing.T, runs []Run) (one, two string) {
	t.Helper()
	tmp := t.TempDir()
	one, two = filepath.Join(tmp, "j1"), filepath.Join(tmp, "j2")
	for dir, jobs := range map[string]int{one: 1, two: 2} {
		rn := testRunner{Dir: dir, Jobs: jobs}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
	}
	return one, two
}
