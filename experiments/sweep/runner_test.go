package sweep

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// fakeRun stands in for an optimizer in the runner's tests: a short curve
// drawn from the run's own seed, so its output is a pure function of the
// run, as Execute's is.
func fakeRun(_ context.Context, r experiments.Run) (*results.Tables, error) {
	rng := rand.New(rand.NewPCG(r.Seed, 1))
	row := experiments.RunRow(r)
	loss := 1.0
	var curve []results.CurvePoint
	for k := range 5 {
		loss *= rng.Float64()
		curve = append(curve, results.CurvePoint{Time: float64(k), BlockUpdates: int64(k), Loss: loss})
	}
	row.Outcome, row.FinalLoss = results.OutcomeOK, loss
	return &results.Tables{Runs: []results.Run{row}, Curves: curve}, nil
}

// slowFakeRun is fakeRun taking 30 ms, so that a sweep can be killed
// midway.
func slowFakeRun(ctx context.Context, r experiments.Run) (*results.Tables, error) {
	time.Sleep(30 * time.Millisecond)
	return fakeRun(ctx, r)
}

func tinyRuns(t testing.TB) []experiments.Run {
	t.Helper()
	s, err := experiments.ReadSpecFile(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	return s.Expand()
}

func sweep(t *testing.T, dir string, jobs int, runs []experiments.Run) Summary {
	t.Helper()
	rn := Runner{Dir: dir, Jobs: jobs, Execute: fakeRun}
	sum, err := rn.Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// sweepShard sweeps shard of the runs all into dir, recording the data set
// as the command does.
func sweepShard(t *testing.T, dir string, spec string, all []experiments.Run, shard Shard) Summary {
	t.Helper()
	ds := NewDataset(spec, all, shard)
	rn := Runner{Dir: dir, Jobs: 2, Execute: fakeRun, Dataset: &ds}
	sum, err := rn.Sweep(context.Background(), shard.Select(all))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// readDeterministic reads a results directory with the wall-clock column,
// the one that differs between executions by design, zeroed.
func readDeterministic(t *testing.T, dir string) *results.Tables {
	t.Helper()
	ds, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The nulls of the nullable columns read as NaN, which DeepEqual
	// cannot compare: they become a sign that no run produces.
	null := func(v *float64) {
		if math.IsNaN(*v) {
			*v = -1
		}
	}
	for i := range ds.Runs {
		ds.Runs[i].WallSeconds = 0
		null(&ds.Runs[i].TimeToTarget)
		null(&ds.Runs[i].LossAtBudget)
		null(&ds.Runs[i].HeldOutLoss)
	}
	for i := range ds.Curves {
		null(&ds.Curves[i].ValidationLoss)
	}
	return ds
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// TestSweepIndependentOfJobsAndShards runs one spec with --jobs 1, with
// --jobs 2, and as two shards merged: the tables hold the same rows, and
// the curves file (which has no wall-clock column) is byte-identical.
func TestSweepIndependentOfJobsAndShards(t *testing.T) {
	runs := tinyRuns(t)
	tmp := t.TempDir()
	one, two, merged := filepath.Join(tmp, "j1"), filepath.Join(tmp, "j2"), filepath.Join(tmp, "merged")
	sweep(t, one, 1, runs)
	sweep(t, two, 2, runs)
	var shards []string
	for i := range 2 {
		dir := filepath.Join(tmp, "shard", string(rune('0'+i)))
		sum := sweepShard(t, dir, "tiny", runs, Shard{Index: i, Count: 2})
		if sum.Ran != len(runs)/2 {
			t.Errorf("shard %d ran %d runs, want %d", i, sum.Ran, len(runs)/2)
		}
		shards = append(shards, dir)
	}
	sum, err := Merge(shards, merged, MergeOptions{})
	if err != nil || sum.Runs != len(runs) || len(sum.Warnings) > 0 {
		t.Fatalf("merge: %d runs, warnings %q, %v", sum.Runs, sum.Warnings, err)
	}
	want := readDeterministic(t, one)
	if len(want.Runs) != len(runs) || len(want.Curves) != 5*len(runs) {
		t.Fatalf("%d runs and %d curve points, want %d and %d", len(want.Runs), len(want.Curves), len(runs), 5*len(runs))
	}
	for _, dir := range []string{two, merged} {
		if got := readDeterministic(t, dir); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: tables differ from the --jobs 1 sweep", dir)
		}
		sameFile(t, filepath.Join(one, results.CurvesFile), filepath.Join(dir, results.CurvesFile))
	}
	// Each group (same configuration but step size and seed: tiny.yaml's
	// runs differ in S, the method and H besides) has exactly one
	// selected step, the same for all its seeds.
	type group struct {
		method             string
		stages, localSteps int32
	}
	sel := map[group]float64{}
	for _, r := range want.Runs {
		if !r.Selected {
			continue
		}
		g := group{r.Method, r.Stages, r.LocalSteps}
		if s, ok := sel[g]; ok && s != r.StepSize {
			t.Errorf("group of %s selects two steps", r.RunID)
		}
		sel[g] = r.StepSize
	}
	// 2 stage counts × (PipeDream + 2 LocalSGD H values).
	if len(sel) != 6 {
		t.Errorf("%d groups with a selected step, want 6", len(sel))
	}
}

func TestMergeRefusesConflicts(t *testing.T) {
	runs := tinyRuns(t)[:4]
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	sweep(t, a, 1, runs)
	// The same runs again merge with --allow-partial (overlapping sweeps,
	// with warnings for the duplicates and the missing dataset.json).
	sweep(t, b, 1, runs)
	if sum, err := Merge([]string{a, b}, filepath.Join(tmp, "ok"), MergeOptions{AllowPartial: true}); err != nil || sum.Runs != 4 || len(sum.Warnings) != 3 {
		t.Fatalf("overlapping merge: %d runs, warnings %q, %v", sum.Runs, sum.Warnings, err)
	}
	// A run whose content differs is refused, naming its id.
	changed := func(ctx context.Context, r experiments.Run) (*results.Tables, error) {
		out, err := fakeRun(ctx, r)
		out.Runs[0].FinalLoss += 1
		return out, err
	}
	c := filepath.Join(tmp, "c")
	if _, err := (&Runner{Dir: c, Jobs: 1, Execute: changed}).Sweep(context.Background(), runs[:1]); err != nil {
		t.Fatal(err)
	}
	_, err := Merge([]string{a, c}, filepath.Join(tmp, "bad"), MergeOptions{AllowPartial: true})
	if err == nil || !strings.Contains(err.Error(), runs[0].ID) {
		t.Fatalf("merge of conflicting runs: %v, want an error naming %s", err, runs[0].ID)
	}
}

// childDirEnv, when set, makes the test binary a sweep process (TestMain)
// that TestSweepResumesAfterKill kills midway.
const childDirEnv = "PIPELAB_EXPERIMENTS_SWEEP_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		s, err := experiments.ReadSpecFile(tinySpec)
		if err == nil {
			_, err = (&Runner{Dir: dir, Jobs: 2, Execute: slowFakeRun}).Sweep(context.Background(), s.Expand())
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func countRecords(t *testing.T, dir string) int {
	t.Helper()
	recs, err := readRecords(filepath.Join(dir, "runs"))
	if err != nil {
		return 0
	}
	return len(recs)
}

// TestSweepResumesAfterKill starts a sweep in a child process, kills it
// (SIGKILL) once some runs are recorded, and restarts it: every run ends
// up in the tables exactly once, the recorded runs are not run again, and
// the tables equal those of an uninterrupted sweep.
func TestSweepResumesAfterKill(t *testing.T) {
	runs := tinyRuns(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "killed")
	cmd := startChildSweep(t, dir, 4)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	done := countRecords(t, dir)
	if done >= len(runs) {
		t.Fatalf("the child finished all %d runs before it was killed", len(runs))
	}
	if _, err := os.Stat(filepath.Join(dir, results.RunsFile)); err == nil {
		t.Fatal("a killed sweep wrote the gathered tables")
	}
	sum := sweep(t, dir, 2, runs)
	if sum.Resumed != done || sum.Ran != len(runs)-done {
		t.Errorf("restart resumed %d and ran %d; %d were recorded of %d", sum.Resumed, sum.Ran, done, len(runs))
	}
	got := readDeterministic(t, dir)
	ids := map[string]int{}
	for _, r := range got.Runs {
		ids[r.RunID]++
	}
	for _, r := range runs {
		if ids[r.ID] != 1 {
			t.Errorf("run %s appears %d times", r.ID, ids[r.ID])
		}
	}
	fresh := filepath.Join(tmp, "fresh")
	sweep(t, fresh, 1, runs)
	if !reflect.DeepEqual(got, readDeterministic(t, fresh)) {
		t.Error("the resumed sweep's tables differ from an uninterrupted sweep's")
	}
}

func TestProgress(t *testing.T) {
	tests := []struct {
		terminal    bool
		total, done int
		want        string
	}{
		// Not a terminal: a line at each further tenth, resumed runs counted.
		{false, 20, 0, "2/20 runs (10%)\n4/20 runs (20%)\n6/20 runs (30%)\n8/20 runs (40%)\n10/20 runs (50%)\n" +
			"12/20 runs (60%)\n14/20 runs (70%)\n16/20 runs (80%)\n18/20 runs (90%)\n20/20 runs (100%)\n"},
		{false, 4, 2, "resuming: 2 of 4 runs already done\n3/4 runs (75%)\n4/4 runs (100%)\n"},
		// A terminal: one line redrawn after every run.
		{true, 2, 0, "\r1/2 runs (50%)\r2/2 runs (100%)\n"},
	}
	for _, tc := range tests {
		var b strings.Builder
		p := newProgress(&b, tc.terminal, tc.total, tc.done)
		for range tc.total - tc.done {
			p.step()
		}
		p.finish()
		if b.String() != tc.want {
			t.Errorf("terminal %v, %d of %d done: got %q, want %q", tc.terminal, tc.done, tc.total, b.String(), tc.want)
		}
	}
}

// tinySpec is the runner's tests' sweep of 28 runs, a spec the
// experiments package's tests read too.
const tinySpec = "../testdata/tiny.yaml"
