package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// ownDelays summarises by hand, from the rows optim.Delays keeps, the
// delay of each stage's own block at its updates in the second half of the
// rows (docs/reference.md §1.3): the maximum, the mean, and the 10th
// percentile interpolated between the sorted delays as numpy.percentile
// does.
func ownDelays(t *testing.T, tl *sim.Timeline) []optim.DelayStats {
	t.Helper()
	dt, err := optim.Delays(tl)
	if err != nil {
		t.Fatal(err)
	}
	own := make([][]int, dt.Stages)
	for _, r := range dt.Rows[len(dt.Rows)/2:] {
		own[r.Stage] = append(own[r.Stage], r.Delays[r.Stage])
	}
	out := make([]optim.DelayStats, dt.Stages)
	for s, v := range own {
		slices.Sort(v)
		sum := 0
		for _, d := range v {
			sum += d
		}
		pos := 0.1 * float64(len(v)-1)
		lo := int(math.Floor(pos))
		hi := min(lo+1, len(v)-1)
		out[s] = optim.DelayStats{Rows: len(v), Max: v[len(v)-1], Mean: float64(sum) / float64(len(v)),
			P10: float64(v[lo]) + (pos-float64(lo))*float64(v[hi]-v[lo])}
	}
	return out
}

// The quick figure's per-stage table at S = 4 and 8: for every family the
// rows are the hand summary of optim.Delays on the family's unit-time
// timeline, built here from the generator (interleaved 1F1B and ZB-V on
// S/2 ranks, two stages a rank) and the event simulation; PipeDream's
// stage 0 reaches the paper's ⌊S² − S/2⌋ (docs/reference.md §1.3), its
// largest delay; 2BW's rows are optim.TwoBWStageDelays with A = S.
func TestDelayProfilesTable(t *testing.T) {
	f, err := LookupFigure("delay-profiles")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs(true)
	if err != nil {
		t.Fatal(err)
	}
	ranks := map[string]int{"pipedream": 1, "interleaved-1f1b": 2, "zb-h1": 1, "zb-v": 2} // stages per rank
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Measure != DelayProfiles {
			continue
		}
		out, err := Execute(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s on %s, S = %d", r.Method, r.Family, r.Stages)
		seen[r.Method+"/"+r.Family] = true
		tab, err := pipeline.Generate(r.Family, pipeline.Shape{Ranks: r.Stages / ranks[r.Family], Microbatches: 10 * r.Stages})
		if err != nil {
			t.Fatal(err)
		}
		tl := sim.FromGrid(tab)
		if r.Family != "pipedream" {
			if tl, err = sim.Simulate(tab, cost.Unit{}, sim.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		var want []optim.DelayStats
		if r.Method == "2bw" {
			if want, err = optim.TwoBWStageDelays(tl, r.Stages, optim.Steady); err != nil {
				t.Fatal(err)
			}
		} else {
			want = ownDelays(t, tl)
		}
		if len(out.Delays) != r.Stages {
			t.Fatalf("%s: %d rows, want one per stage", name, len(out.Delays))
		}
		for s, d := range out.Delays {
			w := want[s]
			if d.Stage != int32(s) || d.Window != results.WindowSteady || d.Kind != r.Family || d.Method != r.Method ||
				d.Rows != int64(w.Rows) || d.Max != int64(w.Max) || math.Abs(d.Mean-w.Mean) > 1e-12 || math.Abs(d.P10-w.P10) > 1e-12 {
				t.Errorf("%s stage %d: %+v, want %+v", name, s, d, w)
			}
		}
		if r.Method == "pipedream" && r.Family == "pipedream" && out.Delays[0].Max != int64(optim.DefaultDelta(r.Stages)) {
			t.Errorf("%s: stage 0's largest delay %d, want ⌊S² − S/2⌋ = %d", name, out.Delays[0].Max, optim.DefaultDelta(r.Stages))
		}
	}
	for _, k := range []string{"pipedream/pipedream", "pipedream/interleaved-1f1b", "pipedream/zb-h1", "pipedream/zb-v", "2bw/pipedream"} {
		if !seen[k] {
			t.Errorf("the quick figure measures no %s profile", k)
		}
	}
}

// The figure's specs validate in both sizes, hold RPD at the three delay
// models beside PipeDream on each objective, and the delay-profiles
// experiment refuses what it cannot measure, naming the key.
func TestDelayProfilesSpecs(t *testing.T) {
	f, err := LookupFigure("delay-profiles")
	if err != nil {
		t.Fatal(err)
	}
	for _, quick := range []bool{true, false} {
		runs, err := f.Runs(quick)
		if err != nil {
			t.Fatal(err)
		}
		models := map[string]map[string]bool{}
		for _, r := range runs {
			if r.Method != "rpd" {
				continue
			}
			if models[r.Objective] == nil {
				models[r.Objective] = map[string]bool{}
			}
			models[r.Objective][cmp.Or(r.DelayModel, results.DelayUniform)] = true
			if r.DelayModel == "" && r.Delta != optim.DefaultDelta(r.Stages) {
				t.Errorf("quick %v: uniform RPD at δ = %d, want the paper's %d", quick, r.Delta, optim.DefaultDelta(r.Stages))
			}
		}
		for _, o := range []string{"quadratic", "charlm"} {
			if len(models[o]) != 3 {
				t.Errorf("quick %v, %s: delay models %v, want the paper's δ, pipedream-mean and pipedream-profile", quick, o, models[o])
			}
		}
	}
	for _, tc := range []struct{ yaml, want string }{
		{"measure: delay-profiles\nstages: [4]\nkinds: [chimera]\n", "kinds[0]"},
		{"measure: delay-profiles\nstages: [4]\nmethods: [{name: rpd}]\n", "methods[0].name"},
		{"measure: delay-profiles\nstages: [4]\ntotal_microbatches: [8]\n", "total_microbatches: does not apply to measure delay-profiles (did you mean total_microbatches_per_stage?"},
		{"measure: delay-profiles\nstages: [4]\nmethods: [{name: pipedream, accumulate: 2}]\n", "methods[0].accumulate"},
		{"measure: delay-profiles\nstages: [3]\nkinds: [zb-v]\n", "kinds[0]"},
		{"measure: delay-profiles\nstages: [4]\nmethods: [{name: pipedream, step_sizes: {values: [0.1]}}]\n", "methods[0]"},
		{"objectives: [quadratic]\nn: 50\nd: 8\nbatch_size: 5\nstages: [4]\ntotal_microbatches: [8]\nmethods: [{name: rpd, deltas: [pipedream-median]}]\n", "pipedream-median"},
	} {
		_, err := ParseSpec("spec.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %s", tc.yaml, err, tc.want)
		}
	}
}

// A uniform RPD run keeps the id it had before the delay models (the
// canonical name gains delay_model only for a measured model), and the
// measured models' runs record the bound their measurement gives: for
// pipedream-mean ⌊2m⌋ + 1 with m PipeDream's steady-state mean delay
// (31.65 at S = 8, N = 80, docs/reference.md §1.3), so 64.
func TestDelayModelRuns(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte("experiment: t\nseed: 1\nobjectives: [quadratic]\nn: 64\nd: 16\nbatch_size: 8\nstages: [8]\n"+
		"total_microbatches: [80]\nmethods: [{name: rpd, deltas: [paper, pipedream-mean, pipedream-profile], step_sizes: {values: [0.01]}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Expand()
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	if strings.Contains(runs[0].Name, "delay_model") || !strings.Contains(runs[1].Name, "delay_model=pipedream-mean") {
		t.Errorf("names %q, %q: only a measured model names its delay model", runs[0].Name, runs[1].Name)
	}
	want := []struct {
		model string
		delta int32
	}{{results.DelayUniform, 60}, {results.DelayPipeDreamMean, 64}, {results.DelayPipeDreamProfile, -1}}
	dt, err := optim.Delays(sim.FromGrid(mustGenerate(t, "pipedream", 8, 80)))
	if err != nil {
		t.Fatal(err)
	}
	want[2].delta = int32(dt.Bound())
	for i, r := range runs {
		out, err := Execute(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		row := out.Runs[0]
		if row.DelayModel != want[i].model || row.Delta != want[i].delta || row.BlockUpdates != 640 {
			t.Errorf("run %d: delay model %q, δ = %d, %d updates; want %q, %d, 640", i, row.DelayModel, row.Delta, row.BlockUpdates, want[i].model, want[i].delta)
		}
	}
}

func mustGenerate(t *testing.T, family string, ranks, n int) *pipeline.Table {
	t.Helper()
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: ranks, Microbatches: n})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// The quick figure's tables do not depend on the number of workers: its
// profile and quadratic runs with one worker and with two give the same
// rows (wall-clock seconds aside) and byte-identical curves. The LM runs
// take the same code path (the delay models are built per run) at a cost
// of seconds each, so they are left out.
func TestDelayProfilesIndependentOfJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick delay-profiles preset twice")
	}
	f, err := LookupFigure("delay-profiles")
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.Runs(true)
	if err != nil {
		t.Fatal(err)
	}
	runs := slices.DeleteFunc(all, func(r Run) bool { return r.Objective == "charlm" })
	one, two := sweepWithOneAndTwoJobs(t, runs)
	want := withoutRPDTime(readDeterministic(t, one))
	if got := withoutRPDTime(readDeterministic(t, two)); !reflect.DeepEqual(got, want) {
		t.Error("--jobs 2 tables differ from --jobs 1")
	}
	sameFile(t, filepath.Join(one, results.CurvesFile), filepath.Join(two, results.CurvesFile))
	sameFile(t, filepath.Join(one, results.DelaysFile), filepath.Join(two, results.DelaysFile))
}

// withoutRPDTime replaces RPD's null simulated times (NaN, which DeepEqual
// cannot compare) with -1, a time no run has.
func withoutRPDTime(ds *results.Tables) *results.Tables {
	for i := range ds.Runs {
		if math.IsNaN(ds.Runs[i].SimTime) {
			ds.Runs[i].SimTime = -1
		}
	}
	for i := range ds.Curves {
		if math.IsNaN(ds.Curves[i].Time) {
			ds.Curves[i].Time = -1
		}
	}
	return ds
}

// A measured delay model that would hold PipeDream's delay rows beyond
// the memory limit is refused at its deltas, by arithmetic: 2·10⁷ rows of
// 2000 delays (8 bytes each) are 3.2e11 bytes.
func TestDelayTablesAreSized(t *testing.T) {
	spec := "experiment: big\nobjectives: [quadratic]\nn: 40\nd: 4000\nbatch_size: 4\nstages: [2000]\ntotal_microbatches: [10000]\n" +
		"methods: [{name: rpd, deltas: [pipedream-profile], step_sizes: {values: [0.01]}}]\n"
	_, err := ParseSpec("spec", []byte(spec))
	if err == nil || !strings.Contains(err.Error(), "methods[0].deltas: PipeDream's 20000000 delay rows at S = 2000 needs about") {
		t.Errorf("%v, want a refusal at methods[0].deltas", err)
	}
}

// The runs table spells the measured delay models as optim names them, so
// that a spec's deltas, train's --delays and the delay_model column agree.
func TestMeasuredDelayModelNames(t *testing.T) {
	if results.DelayPipeDreamMean != optim.DelayModelPipeDreamMean || results.DelayPipeDreamProfile != optim.DelayModelPipeDreamProfile {
		t.Errorf("results %q, %q; optim %q, %q", results.DelayPipeDreamMean, results.DelayPipeDreamProfile,
			optim.DelayModelPipeDreamMean, optim.DelayModelPipeDreamProfile)
	}
}
