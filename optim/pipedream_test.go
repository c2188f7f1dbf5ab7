package optim

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// A hand-made two-stage PipeDream grid replayed with weight stashing
// (docs/reference.md §1.2), against the trajectory worked out by hand:
//
//	step:     0     1     2     3     4     5
//	stage 0: F0    F1     .    B0     .    B1
//	stage 1:  .    F0    B0    F1    B1     .
//
// z_0 = (0, 0); B(0, 1) then B(0, 0) step with ∇f_{b0}(z_0); F(1, 1) at
// step 3 reads block 1 after that update while F(1, 0) read block 0 = 0,
// so z_1 = (0, x_1 after step 2); B(1, 1) and B(1, 0) step with ∇f_{b1}(z_1).
func TestPipeDreamWeightStashingByHand(t *testing.T) {
	f, b := pipeline.F, pipeline.B
	var bubble pipeline.Action
	tab := &pipeline.Table{
		Rows: [][]pipeline.Action{
			{f(0, 0), f(0, 1), bubble, b(0, 0), bubble, b(0, 1)},
			{bubble, f(1, 0), b(1, 0), f(1, 1), b(1, 1), bubble},
		},
		Placement: []int{0, 1}, Microbatches: 2, Update: pipeline.PerBackward,
	}
	obj := quadratic(t, 8, 5, 2, 4, 3)
	const gamma = 0.1
	res := mustRun(t, obj, PipeDream{Timeline: sim.FromGrid(tab)}, Settings{StepSize: gamma, LogEvery: 1})

	bl := obj.Blocks()
	g0 := make([]float64, 5)
	obj.Gradient(g0, make([]float64, 5), 0, nil)
	x := make([]float64, 5)
	for j := bl[1]; j < bl[2]; j++ { // B(0, 1), step 2
		x[j] -= gamma * g0[j]
	}
	for j := bl[0]; j < bl[1]; j++ { // B(0, 0), step 3
		x[j] -= gamma * g0[j]
	}
	z1 := make([]float64, 5)
	copy(z1[bl[1]:], x[bl[1]:]) // block 0 read 0 at step 1; block 1 read at step 3
	g1 := make([]float64, 5)
	obj.Gradient(g1, z1, 1, nil)
	for j := range x { // B(1, 1) at step 4, B(1, 0) at step 5
		x[j] -= gamma * g1[j]
	}
	closeVectors(t, "x", res.X, x, 1e-14)

	var times []float64
	var updates []int
	for _, r := range res.Records {
		times, updates = append(times, r.Time), append(updates, r.Updates)
	}
	if !slices.Equal(times, []float64{0, 3, 4, 5, 6}) || !slices.Equal(updates, []int{0, 1, 2, 3, 4}) {
		t.Errorf("records at times %v updates %v, want the ends of the four backwards", times, updates)
	}
	if res.Time != 6 || res.BlockUpdates != 4 || res.Microbatches != 2 || res.Diverged {
		t.Errorf("result %+v", res)
	}
}

// Records every update through the loss tracker (LogEvery < S) agree with
// records evaluated afresh at the same update counts (LogEvery ≥ S): both
// are f at the same iterate.
func TestTrackedLossEqualsFreshLoss(t *testing.T) {
	obj := logistic(t, 60, 24, 4, 6, 0.5, 2)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 20})
	dense := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.05, Seed: 1, LogEvery: 1})
	sparse := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.05, Seed: 1, LogEvery: 8})
	byUpdate := map[int]float64{}
	for _, r := range dense.Records {
		byUpdate[r.Updates] = r.Loss
	}
	if len(sparse.Records) != 11 || len(dense.Records) != 81 {
		t.Fatalf("%d sparse and %d dense records, want 80/8+1 and 80+1", len(sparse.Records), len(dense.Records))
	}
	for _, r := range sparse.Records {
		if got := byUpdate[r.Updates]; math.Abs(got-r.Loss) > 1e-12*r.Loss {
			t.Errorf("after %d updates: tracked %.15g, fresh %.15g", r.Updates, got, r.Loss)
		}
	}
}

// A run whose loss blows up stops, is marked diverged and returns no
// error; the selection rules skip it. It stops at the first record whose
// loss exceeds DivergenceFactor times the initial loss, before it
// overflows.
func TestDivergenceIsMarkedNotCrashed(t *testing.T) {
	obj := quadratic(t, 40, 16, 4, 5, 1)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 400})
	res := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 64, LogEvery: 4})
	last := res.Records[len(res.Records)-1]
	f0, prev := res.Records[0].Loss, res.Records[len(res.Records)-2].Loss
	if !res.Diverged || !(last.Loss > DivergenceFactor*f0) || prev > DivergenceFactor*f0 || res.BlockUpdates >= 1600 {
		t.Fatalf("diverged %v after %d of 1600 updates, last record %+v", res.Diverged, res.BlockUpdates, last)
	}
	good := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 1.0 / 64, LogEvery: 4})
	c, err := BestFinal{}.Choose([]float64{1.0 / 64, 64}, [][]*Result{{good}, {res}})
	if err != nil || c.Index != 0 {
		t.Errorf("BestFinal chose %+v, %v; want the finite run", c, err)
	}
	if _, err := (BestFinal{}).Choose([]float64{64}, [][]*Result{{res}}); !errors.Is(err, ErrNoStepSize) {
		t.Errorf("all diverged: %v, want ErrNoStepSize", err)
	}
}

// Same settings and seed give the same run; another seed draws other
// gradient noise.
func TestRunsAreSeeded(t *testing.T) {
	obj := logistic(t, 40, 12, 3, 4, 0.5, 1)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 3, Microbatches: 30})
	a := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.1, Seed: 5})
	b := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.1, Seed: 5})
	c := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.1, Seed: 6})
	identicalResults(t, "same seed", a, b)
	if a.FinalLoss == c.FinalLoss {
		t.Error("seeds 5 and 6 gave the same final loss")
	}
}

func TestReplayErrors(t *testing.T) {
	obj := quadratic(t, 8, 6, 2, 4, 1)
	w := pipeline.W
	split := &pipeline.Table{Rows: [][]pipeline.Action{{pipeline.F(0, 0), w(0, 0)}, {{}, {}, pipeline.F(1, 0), w(1, 0)}}, Placement: []int{0, 1}}
	early := &pipeline.Table{Rows: [][]pipeline.Action{{pipeline.F(0, 0), pipeline.B(0, 0)}, {{}, {}, pipeline.F(1, 0), pipeline.B(1, 0)}}, Placement: []int{0, 1}}
	three := &pipeline.Table{Rows: [][]pipeline.Action{{pipeline.F(0, 0)}, {}, {}}, Placement: []int{0, 1, 2}}
	cases := []struct {
		name string
		m    Method
		set  Settings
	}{
		{"W before all forwards", PipeDream{Timeline: sim.FromGrid(split)}, Settings{StepSize: 1}},
		{"B before all forwards", PipeDream{Timeline: sim.FromGrid(early)}, Settings{StepSize: 1}},
		{"stage count", PipeDream{Timeline: sim.FromGrid(three)}, Settings{StepSize: 1}},
		{"no timeline", PipeDream{}, Settings{StepSize: 1}},
		{"zero step", PipeDream{Timeline: sim.FromGrid(early)}, Settings{}},
		{"sync on async table", Sync{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 2})}, Settings{StepSize: 1}},
		{"localsgd on async table", LocalSGD{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 2})}, Settings{StepSize: 1}},
		{"rpd without model", RPD{}, Settings{StepSize: 1}},
	}
	for _, c := range cases {
		if _, err := Run(obj, c.m, c.set); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
