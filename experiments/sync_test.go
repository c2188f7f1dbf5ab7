package experiments

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// TestSyncEqualsDirectRun: a sync run of a sweep is optim.Run of
// optim.Sync on the 1F1B iteration, with the iteration count of the budget
// rule worked out by hand, called here directly on a timeline and an
// objective built without the sweep's code.
func TestSyncEqualsDirectRun(t *testing.T) {
	runs, outs := execute(t, `seed: 3
objectives: [logistic]
n: 60
d: 16
batch_size: 5
stages: [4]
time_budget: [100]
methods:
  - {name: sync, step_sizes: {values: [0.25, 1]}}
`)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for i, r := range runs {
		data, err := objectives.RandomLogistic(60, 16, r.DataSeed)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := objectives.NewLogistic(data, 4, 5, objectives.DefaultL2, objectives.DefaultNoise)
		if err != nil {
			t.Fatal(err)
		}
		// 1F1B on the unit grid: one iteration of N = S = 4 microbatches
		// on 4 stages lasts 2(N + S - 1) = 14 steps; 7 iterations (98
		// steps) fall short of the budget of 100, 8 (112) reach it.
		tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 4})
		if err != nil {
			t.Fatal(err)
		}
		want, err := optim.Run(obj, optim.Sync{Timeline: sim.FromGrid(tab), Iterations: 8}, optim.Settings{StepSize: r.Step, Seed: r.Seed})
		if err != nil {
			t.Fatal(err)
		}
		row := outs[i].Runs[0]
		if row.Method != "sync" || row.SimTime != 112 || want.Time != 112 || row.FinalLoss != want.FinalLoss ||
			row.BlockUpdates != 8*4 || row.TotalMicrobatches != 8*4 || row.Outcome != results.OutcomeOK {
			t.Errorf("%s: method %s time %g loss %v updates %d microbatches %d outcome %s; direct: time %g loss %v",
				r.Name, row.Method, row.SimTime, row.FinalLoss, row.BlockUpdates, row.TotalMicrobatches, row.Outcome, want.Time, want.FinalLoss)
		}
		curve := outs[i].Curves
		if len(curve) != len(want.Records) {
			t.Fatalf("%s: %d curve points, direct %d", r.Name, len(curve), len(want.Records))
		}
		for k, rec := range want.Records {
			c := curve[k]
			if c.RunID != r.ID || c.Time != rec.Time || c.BlockUpdates != int64(rec.Updates) || c.Loss != rec.Loss {
				t.Errorf("%s: point %d is %+v, direct %+v", r.Name, k, c, rec)
			}
		}
	}
}

// TestSyncIterationsMatchBudget: the iteration count is the smallest whose
// duration reaches the budget (docs/reference.md §1.6's rule), each case worked
// out by hand under unit time (F, B, I and W one step each, transfers
// free; pipeline/sim/cost_unit.go).
func TestSyncIterationsMatchBudget(t *testing.T) {
	tests := []struct {
		name, method, size string
		stages             int
		iters, perIter     int
		time               float64
	}{
		// 1F1B, N = S = 4: T = 2(N + S - 1) = 14; 7·14 = 98 < 100 ≤ 112.
		{"1f1b S=4", "{name: sync, step_sizes: {values: [0.05]}}", "time_budget: [100]", 4, 8, 4, 112},
		// A budget of exactly 7 iterations: no overshoot.
		{"exact fit", "{name: sync, step_sizes: {values: [0.05]}}", "time_budget: [98]", 4, 7, 4, 98},
		// 1F1B, N = S = 8: T = 2(8 + 7) = 30; 3·30 = 90 < 100 ≤ 120.
		{"1f1b S=8", "{name: sync, step_sizes: {values: [0.05]}}", "time_budget: [100]", 8, 4, 8, 120},
		// N = 6 per iteration on 4 stages: T = 2(6 + 3) = 18; 5·18 = 90 < 100 ≤ 108.
		{"N=6", "{name: sync, microbatches: 6, step_sizes: {values: [0.05]}}", "time_budget: [100]", 4, 6, 6, 108},
		// GPipe lasts (N + S - 1)(T_F + T_B) = 14 too (docs/reference.md §2).
		{"gpipe", "{name: sync, kind: gpipe, step_sizes: {values: [0.05]}}", "time_budget: [100]", 4, 8, 4, 112},
		// ZB-H1 with T_F = T_I = T_W = 1: N(T_F + T_B + T_W) plus the bubble
		// (S - 1)(T_F + T_B - T_W) = 12 + 3 = 15 (docs/reference.md §2); 6·15 =
		// 90 < 100 ≤ 105.
		{"zb-h1", "{name: sync, kind: zb-h1, step_sizes: {values: [0.05]}}", "time_budget: [100]", 4, 7, 4, 105},
		// A fixed N = 20: 5 whole iterations of 4; N = 21 needs a sixth.
		{"N fixed", "{name: sync, step_sizes: {values: [0.05]}}", "total_microbatches: [20]", 4, 5, 4, 70},
		{"N rounded up", "{name: sync, step_sizes: {values: [0.05]}}", "total_microbatches: [21]", 4, 6, 4, 84},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, outs := execute(t, "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: ["+
				strconv.Itoa(tc.stages)+"]\n"+tc.size+"\nmethods:\n  - "+tc.method+"\n")
			row := outs[0].Runs[0]
			if runs[0].Microbatches != tc.perIter || row.SimTime != tc.time ||
				row.BlockUpdates != int64(tc.iters*tc.stages) || row.TotalMicrobatches != int32(tc.iters*tc.perIter) {
				t.Errorf("%s: %d per iteration, time %g, %d updates, %d microbatches; want %d, %g, %d, %d",
					runs[0].Name, runs[0].Microbatches, row.SimTime, row.BlockUpdates, row.TotalMicrobatches,
					tc.perIter, tc.time, tc.iters*tc.stages, tc.iters*tc.perIter)
			}
		})
	}
}

// TestSyncGPUBudget: under the GPU model an iteration lasts the event
// simulation's makespan of the 1F1B iteration, and the run takes
// ⌈budget / T⌉ of them.
func TestSyncGPUBudget(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [4]
time_budget: [2.5]
cost: {cost_model: gpu}
methods:
  - {name: sync, step_sizes: {values: [0.05]}}
`)
	gm, err := gpuModel(runs[0].Cost, 4)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 4})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(tab, gm, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	period := sim.Makespan(tl)
	k := math.Ceil(2.5 / period)
	row := outs[0].Runs[0]
	if row.SimTime != k*period || row.BlockUpdates != int64(4*k) || !((k-1)*period < 2.5) {
		t.Errorf("GPU sync: %g s and %d updates, want %g iterations of %g s", row.SimTime, row.BlockUpdates, k, period)
	}
}

// TestSyncExpand: sync's defaults (1F1B, N = S per iteration) appear in
// the run names, an explicit default names the same runs, and adding sync
// to a spec changes no other run's id or seeds.
func TestSyncExpand(t *testing.T) {
	const async = `seed: 2
objectives: [logistic]
n: 40
d: 8
batch_size: 4
stages: [4, 8]
time_budget: [100]
methods:
  - {name: pipedream, step_sizes: {values: [0.1]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.1]}}
  - {name: rpd, step_sizes: {values: [0.1]}}
`
	before := mustSpec(t, async).Expand()
	after := mustSpec(t, async+"  - {name: sync, step_sizes: {values: [0.1, 0.2]}}\n").Expand()
	if len(after) != len(before)+2*2 {
		t.Fatalf("%d runs with sync, %d without", len(after), len(before))
	}
	byID := map[string]Run{}
	for _, r := range after {
		byID[r.ID] = r
	}
	for _, r := range before {
		a, ok := byID[r.ID]
		if !ok || a.Name != r.Name || a.Seed != r.Seed || a.DataSeed != r.DataSeed {
			t.Errorf("adding sync changed run %s (%s)", r.ID, r.Name)
		}
	}
	explicit := mustSpec(t, strings.Replace(async, "stages: [4, 8]", "stages: [4]", 1)+
		"  - {name: sync, kind: 1f1b, microbatches: 4, step_sizes: {values: [0.1]}}\n").Expand()
	var sync []Run
	for _, r := range after {
		if r.Method == "sync" {
			sync = append(sync, r)
			if r.Family != "1f1b" || r.Microbatches != r.Stages ||
				!strings.Contains(r.Name, "family=1f1b method=sync S="+strconv.Itoa(r.Stages)+" per_iteration="+strconv.Itoa(r.Stages)) {
				t.Errorf("sync run %q: family %q, %d per iteration", r.Name, r.Family, r.Microbatches)
			}
		}
	}
	last := explicit[len(explicit)-1]
	if last.Method != "sync" || byID[last.ID].Name != last.Name {
		t.Errorf("explicit defaults name %q, which the defaulted spec does not have", last.Name)
	}
	if len(sync) != 4 {
		t.Errorf("%d sync runs, want 2 stage counts × 2 steps", len(sync))
	}
}

// TestSyncRunsBesideOthers: a sweep of all four methods runs, and sync's
// timeline is the only one priced by the flush family.
func TestSyncRunsBesideOthers(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [4]
time_budget: [100]
methods:
  - {name: pipedream, step_sizes: {values: [0.05]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
  - {name: rpd, step_sizes: {values: [0.05]}}
  - {name: sync, step_sizes: {values: [0.05]}}
`)
	for i, r := range runs {
		row := outs[i].Runs[0]
		if row.Outcome != results.OutcomeOK || row.Method != r.Method {
			t.Errorf("%s: outcome %s method %s", r.Name, row.Outcome, row.Method)
		}
		// PipeDream: 2N + 2S - 2 ≥ 100 first at N = 47 (docs/reference.md §1.2).
		if r.Method == "pipedream" && (row.TotalMicrobatches != 47 || row.SimTime != 100) {
			t.Errorf("pipedream: N = %d, %g steps; want 47 and 100", row.TotalMicrobatches, row.SimTime)
		}
		if r.Method == "sync" && row.SimTime != 112 {
			t.Errorf("sync: %g steps, want 8 iterations of 14", row.SimTime)
		}
	}
}

// TestSyncCancelled: a sync replay stops when the sweep is cancelled.
func TestSyncCancelled(t *testing.T) {
	runs := mustSpec(t, "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [4]\ntime_budget: [1000]\nmethods:\n  - {name: sync, step_sizes: {values: [0.05]}}\n").Expand()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Execute(ctx, runs[0]); err == nil {
		t.Error("a cancelled sync run finished")
	}
}
