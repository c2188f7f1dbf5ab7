package experiments

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// The synthetic objective of these tests: SGD with constant step γ on
// f(x) = ½λx² from x₀, each gradient carrying independent noise of
// variance σ². Its expected loss after K steps is, in closed form (x_{k+1}
// = (1-γλ)x_k - γξ_k, so E x²_{k+1} = a·E x²_k + γ²σ² with a = (1-γλ)²),
//
//	L(γ) = ½λ (a^K x₀² + γ²σ² (1 - a^K)/(1 - a)),
//
// and ½λ(x₀² + Kγ²σ²) at a = 1. Too small a step leaves a^K x₀², too
// large one the noise floor γσ²/(2-γλ)·λ/2 (or divergence past γ = 2/λ):
// the best constant step lies between.
const (
	synLambda = 1.0
	synSigma  = 0.1
	synX0     = 1.0
	synK      = 100
)

func synLoss(step float64) float64 {
	a := (1 - step*synLambda) * (1 - step*synLambda)
	if a == 1 {
		return synLambda / 2 * (synX0*synX0 + synK*step*step*synSigma*synSigma)
	}
	aK := math.Pow(a, synK)
	return synLambda / 2 * (aK*synX0*synX0 + step*step*synSigma*synSigma*(1-aK)/(1-a))
}

// synExecute is a RunFunc giving each run the closed-form loss of its step
// as its final and held-out loss, diverged past optim.DivergenceFactor
// times the initial loss as a real run would be.
func synExecute(_ context.Context, r Run) (*results.Tables, error) {
	row := RunRow(r)
	row.Outcome = results.OutcomeOK
	row.FinalLoss = synLoss(r.Step)
	row.HeldOutLoss = row.FinalLoss
	row.SimTime = 1
	if row.FinalLoss > 1e6*synLambda/2*synX0*synX0 {
		row.Outcome, row.FinalLoss, row.HeldOutLoss = results.OutcomeDiverged, math.Inf(1), math.NaN()
	}
	return &results.Tables{Runs: []results.Run{row}}, nil
}

// synSpec is a one-method sweep over the grid 2^lo..2^hi that grows by up
// to extend steps an edge.
func synSpec(t *testing.T, grid, extend string) []Run {
	t.Helper()
	return mustSpec(t, `experiment: syn
seed: 7
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
total_microbatches: [20]
extend_grid: `+extend+`
methods:
  - {name: pipedream, step_sizes: `+grid+`}
`).Expand()
}

// sweepSyn sweeps runs with synExecute into a new folder and returns the
// runs table and the summary.
func sweepSyn(t *testing.T, runs []Run) ([]results.Run, testSummary) {
	t.Helper()
	dir := t.TempDir()
	rn := testRunner{Dir: dir, Jobs: 2, Execute: synExecute}
	sum, err := rn.Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadRuns(filepath.Join(dir, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows, sum
}

// gridOf returns the steps run, ascending, and the selected row.
func gridOf(t *testing.T, rows []results.Run) ([]float64, results.Run) {
	t.Helper()
	var steps []float64
	var sel []results.Run
	for _, r := range rows {
		steps = append(steps, r.StepSize)
		if r.Selected {
			sel = append(sel, r)
		}
	}
	slices.Sort(steps)
	if len(sel) != 1 {
		t.Fatalf("%d selected runs, want 1", len(sel))
	}
	return steps, sel[0]
}

// bestPow2 is the power of two 2^k, lo <= k <= hi, of least closed-form
// loss, found by evaluating every one.
func bestPow2(lo, hi int) float64 {
	best := math.Ldexp(1, lo)
	for k := lo; k <= hi; k++ {
		if s := math.Ldexp(1, k); synLoss(s) < synLoss(best) {
			best = s
		}
	}
	return best
}

// The optimum of the synthetic objective, by golden-section search on the
// closed form over (0, 2/λ): the independent reference the walk is
// judged against.
func synOptimum() float64 {
	lo, hi := 1e-6, 1.9/synLambda
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if synLoss(a) < synLoss(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return (lo + hi) / 2
}

// From a grid far below the best step, the grid walks up one power of two
// at a time to the best power of two and stops one step past it, which it
// then brackets: the selected step is the power of two of least
// closed-form loss, within a factor 2 of the continuous optimum (golden
// section on the closed form), and not marked as a bound.
func TestGridWalksUpToTheOptimum(t *testing.T) {
	rows, sum := sweepSyn(t, synSpec(t, "{pow2: [-12, -10]}", "10"))
	steps, sel := gridOf(t, rows)
	want := bestPow2(-20, 1)
	opt := synOptimum()
	if sel.StepSize != want {
		t.Errorf("selected γ = %g, want the best power of two %g (closed form)", sel.StepSize, want)
	}
	if !(want > opt/2 && want < 2*opt) {
		t.Errorf("best power of two %g is not within a factor 2 of the optimum %g", want, opt)
	}
	if sel.SelectionBound != "" {
		t.Errorf("selection_bound %q, want none", sel.SelectionBound)
	}
	wantSteps := []float64{}
	for k := -12; math.Ldexp(1, k) <= 2*want; k++ {
		wantSteps = append(wantSteps, math.Ldexp(1, k))
	}
	if !reflect.DeepEqual(steps, wantSteps) {
		t.Errorf("grid run %v, want the powers of two from 2^-12 to one past the best, %v", steps, wantSteps)
	}
	if sum.Runs != len(wantSteps) || sum.Ran != len(wantSteps) {
		t.Errorf("summary counts %d runs, %d ran; want %d", sum.Runs, sum.Ran, len(wantSteps))
	}
	t.Logf("optimum γ* = %.4g, best power of two %g, grid walked 2^-12..%g", opt, want, steps[len(steps)-1])
}

// From a grid whose every step diverges, the grid walks down until a step
// converges and then on to the best power of two.
func TestGridWalksDownFromDivergence(t *testing.T) {
	rows, _ := sweepSyn(t, synSpec(t, "{pow2: [3, 5]}", "10"))
	steps, sel := gridOf(t, rows)
	if want := bestPow2(-20, 1); sel.StepSize != want || sel.SelectionBound != "" {
		t.Errorf("selected γ = %g (bound %q), want %g inside the grid", sel.StepSize, sel.SelectionBound, want)
	}
	if steps[len(steps)-1] != 32 || synLoss(8) < 1e6 {
		t.Fatalf("grid %v: the spec's grid 2^3..2^5 should diverge and stay in the table", steps)
	}
}

// With fewer extensions than the walk needs, the grid grows by exactly
// extend_grid steps and the choice, still at the top, is marked upper; with
// none it is marked at once. A grid of one step is fixed: never extended.
func TestGridBoundWhenExtensionRunsOut(t *testing.T) {
	for _, c := range []struct {
		extend string
		top    float64
	}{{"2", math.Ldexp(1, -8)}, {"0", math.Ldexp(1, -10)}} {
		rows, _ := sweepSyn(t, synSpec(t, "{pow2: [-12, -10]}", c.extend))
		steps, sel := gridOf(t, rows)
		if steps[len(steps)-1] != c.top || sel.StepSize != c.top || sel.SelectionBound != results.BoundUpper {
			t.Errorf("extend_grid %s: grid %v, selected %g (%q); want the top %g marked upper",
				c.extend, steps, sel.StepSize, sel.SelectionBound, c.top)
		}
	}
	rows, _ := sweepSyn(t, synSpec(t, "{values: [0.001]}", "3"))
	steps, sel := gridOf(t, rows)
	if len(steps) != 1 || sel.SelectionBound != results.BoundFixed {
		t.Errorf("one-step grid: ran %v, bound %q; want one step, fixed", steps, sel.SelectionBound)
	}
}

// A grid of other values grows by its edge ratio, rounded to 12 digits;
// powers of two stay exact.
func TestStepBeyond(t *testing.T) {
	for _, c := range []struct {
		edge, ratio float64
		dir         int
		want        float64
	}{
		{1e-3, 1e-2 / 1e-3, -1, 1e-4},
		{0.3, 0.3 / 0.1, 1, 0.9},
		{math.Ldexp(1, -30), 2, -1, math.Ldexp(1, -31)},
		{math.Ldexp(1, 3), 4, 1, 32},
	} {
		if got := stepBeyond(c.edge, c.ratio, c.dir); got != c.want {
			t.Errorf("stepBeyond(%g, %g, %d) = %v, want %v", c.edge, c.ratio, c.dir, got, c.want)
		}
	}
}

// extend_grid out of range, or on a measure without step sizes, is named.
func TestExtendGridKey(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"experiment: x\nobjectives: [quadratic]\nn: 8\nd: 2\nbatch_size: 2\nstages: [2]\ntotal_microbatches: [4]\nextend_grid: -1\n" +
			"methods: [{name: pipedream, step_sizes: {values: [0.1]}}]\n", "extend_grid"},
		{"experiment: x\nobjectives: [quadratic]\nn: 8\nd: 2\nbatch_size: 2\nstages: [2]\ntotal_microbatches: [4]\nextend_grid: 11\n" +
			"methods: [{name: pipedream, step_sizes: {values: [0.1]}}]\n", "extend_grid"},
		{"experiment: x\nmeasure: delays\nstages: [2]\nextend_grid: 2\n", "extend_grid"},
	} {
		_, err := ParseSpec("x.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.yaml") {
			t.Errorf("%q: %v, want an error naming x.yaml and %s", c.src, err, c.want)
		}
	}
	for _, r := range synSpec(t, "{pow2: [-3, -1]}", "4") {
		if r.ExtendGrid != 4 || r.GridLo != 0.125 || r.GridHi != 0.5 {
			t.Errorf("run %s: ExtendGrid %d, grid %g..%g; want 4, 0.125..0.5", r.Name, r.ExtendGrid, r.GridLo, r.GridHi)
		}
	}
}
