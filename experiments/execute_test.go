package experiments

import (
	"context"
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// execute expands a spec and runs every run in order.
func execute(t *testing.T, src string) ([]Run, []*results.Tables) {
	t.Helper()
	runs := mustSpec(t, src).Expand()
	outs := make([]*results.Tables, len(runs))
	for i, r := range runs {
		out, err := Execute(context.Background(), r)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		outs[i] = out
	}
	return runs, outs
}

func TestExecuteDelays(t *testing.T) {
	_, outs := execute(t, "measure: delays\nstages: [4, 8]\n")
	// docs/reference.md §1.3 (measured with the reference code, N = 10S, steady
	// half): S = 4 max 14 mean 7.55; S = 8 max 60 mean 31.65; over all rows
	// S = 8 has max 72. The timeline takes 2N + 2S - 2 steps (§1.2).
	want := map[[2]any][2]float64{
		{4, results.WindowSteady}: {14, 7.55},
		{8, results.WindowSteady}: {60, 31.65},
		{8, results.WindowAll}:    {72, math.NaN()},
	}
	for _, out := range outs {
		for _, d := range out.Delays {
			if d.TimeSteps != int64(2*10*d.Stages+2*d.Stages-2) {
				t.Errorf("S = %d: %d steps", d.Stages, d.TimeSteps)
			}
			w, ok := want[[2]any{int(d.Stages), d.Window}]
			if !ok {
				continue
			}
			if float64(d.Max) != w[0] || (!math.IsNaN(w[1]) && math.Abs(d.Mean-w[1]) > 0.005) {
				t.Errorf("S = %d %s: max %d mean %.4f, want %v", d.Stages, d.Window, d.Max, d.Mean, w)
			}
		}
	}
}

func TestExecuteConvergenceUnit(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2, 4]
total_microbatches: [20]
methods:
  - {name: pipedream, step_sizes: {values: [0.05]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
  - {name: rpd, deltas: [paper], step_sizes: {values: [0.05]}}
`)
	for i, r := range runs {
		row := outs[i].Runs[0]
		s, n := float64(r.Stages), 20.0
		var want float64
		switch r.Method {
		case "pipedream":
			want = 2*n + 2*s - 2 // docs/reference.md §1.2
		case "localsgd":
			// docs/reference.md §1.5 with R = S, H = 2: q rounds of RH plus a
			// remainder r.
			rh := s * 2
			q, rem := math.Floor(n/rh), math.Mod(n, rh)
			want = q * (2*rh + 2*s - 2)
			if rem > 0 {
				want += 2*rem + 2*s - 2
			}
		case "rpd":
			// K = N·S iterations (§1.4), but RPD has no timeline: no time.
			want = math.NaN()
		}
		if !(row.SimTime == want || math.IsNaN(want) && math.IsNaN(row.SimTime)) || row.BlockUpdates != int64(n*s) || row.Outcome != results.OutcomeOK {
			t.Errorf("%s: time %g updates %d outcome %s, want time %g updates %g", r.Name, row.SimTime, row.BlockUpdates, row.Outcome, want, n*s)
		}
		if c := outs[i].Curves; len(c) < 2 || !(c[len(c)-1].Loss < c[0].Loss) {
			t.Errorf("%s: the loss did not decrease", r.Name)
		}
	}
}

func TestExecuteBudgetMatch(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 16
batch_size: 4
stages: [2, 8]
time_budget: [3180]
methods:
  - {name: pipedream, step_sizes: {values: [0.01]}}
  - {name: localsgd, local_steps: [5], step_sizes: {values: [0.01]}}
`)
	// docs/reference.md §1.6 (measured with the reference code): PipeDream
	// N = 1589 (S = 2), 1583 (S = 8); LocalSGD H = 5: 1445, 1352.
	want := map[string]map[int]int32{"pipedream": {2: 1589, 8: 1583}, "localsgd": {2: 1445, 8: 1352}}
	for i, r := range runs {
		if got := outs[i].Runs[0].TotalMicrobatches; got != want[r.Method][r.Stages] {
			t.Errorf("%s S = %d: N = %d, want %d", r.Method, r.Stages, got, want[r.Method][r.Stages])
		}
		if outs[i].Runs[0].SimTime < 3180 {
			t.Errorf("%s: %g steps, short of the budget", r.Name, outs[i].Runs[0].SimTime)
		}
	}
}

// TestExecuteGPUAveraging checks that a LocalSGD run under the GPU model
// lasts the event simulation's makespan plus one all-reduce per complete
// round, the formula of cost.GPUModel.AveragingTime computed here from the
// presets.
func TestExecuteGPUAveraging(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [4]
total_microbatches: [20]
cost: {cost_model: gpu}
methods:
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
`)
	gm, err := gpuModel(runs[0].Cost, 4)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.Generate("localsgd", pipeline.Shape{Ranks: 4, Microbatches: 20, LocalSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(tab, gm, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	link, _ := cost.LookupLink(DefaultGPU.Link) // the spec's cost: {cost_model: gpu} takes the default link
	var avg float64
	for s := range 4 {
		bytes := gm.Params(s) * 2 // bf16
		avg = max(avg, 2*3.0/4*bytes/link.Bandwidth+2*3*link.Latency)
	}
	rounds := 20 / (4 * 2)
	want := sim.Makespan(tl) + float64(rounds)*avg
	if got := outs[0].Runs[0].SimTime; math.Abs(got-want) > 1e-12*want || avg <= 0 {
		t.Errorf("GPU LocalSGD lasted %g s, want makespan %g + %d × %g", got, sim.Makespan(tl), rounds, avg)
	}
}

func TestExecuteSchedules(t *testing.T) {
	_, outs := execute(t, "measure: schedules\nkinds: [gpipe, 1f1b]\nranks: [4]\nmicrobatches: [8]\n")
	for _, out := range outs {
		levels := map[string]results.ScheduleMetric{}
		for _, m := range out.Schedules {
			levels[m.Level] = m
		}
		// GPipe and 1F1B, uniform unit stages: (M + P - 1)(T_F + T_B) =
		// 11 × 2 = 22 steps at the formula and simulated levels
		// (docs/reference.md §2); 1F1B holds at most P = 4 activations, GPipe M.
		for _, lv := range []string{results.LevelFormula, results.LevelSimulated} {
			m, ok := levels[lv]
			if !ok || m.Makespan != 22 {
				t.Errorf("%s %s: makespan %g (present %v), want 22", m.Family, lv, m.Makespan, ok)
			}
		}
		peak := map[string]float64{"gpipe": 8, "1f1b": 4}[levels[results.LevelSimulated].Family]
		if got := levels[results.LevelSimulated].PeakActivations; got != peak {
			t.Errorf("%s: peak %g activations, want %g", levels[results.LevelSimulated].Family, got, peak)
		}
		if _, ok := levels[results.LevelLockstep]; !ok || len(out.Timeline) == 0 {
			t.Error("no lockstep level or no timeline events")
		}
	}
}

// TestExecuteChimeraFormula: Chimera's closed form with T_F = T_B = 1 is
// 2M + P - 2 steps (arXiv 2107.06925; its generator's grid takes as many),
// each microbatch visiting one stage per rank although the table has 2P.
func TestExecuteChimeraFormula(t *testing.T) {
	_, outs := execute(t, "measure: schedules\nkinds: [chimera]\nranks: [4]\nmicrobatches: [8]\n")
	for _, m := range outs[0].Schedules {
		if m.Level != results.LevelLockstep && m.Makespan != 2*8+4-2 {
			t.Errorf("chimera %s: makespan %g, want 18", m.Level, m.Makespan)
		}
	}
}
