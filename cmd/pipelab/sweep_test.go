package main

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// tinySpec is a real sweep small enough for a unit test: 2 stage counts ×
// (2 PipeDream steps + 2 LocalSGD steps) = 8 runs on a 40×8 quadratic.
const tinySpec = `experiment: tiny
seed: 5
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2, 4]
total_microbatches: [12]
methods:
  - name: pipedream
    step_sizes: {values: [0.05, 0.1]}
  - name: localsgd
    local_steps: [2]
    step_sizes: {values: [0.05, 0.1]}
`

func writeSpec(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pipelab runs the command line in-process and fails the test on a non-zero
// exit.
func pipelab(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("pipelab %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// tables reads a results directory with the wall-clock column zeroed: the
// one column that differs between executions by design. The nulls of the
// nullable columns read as NaN, which DeepEqual cannot compare: they
// become -1, a value no run produces there.
func tables(t *testing.T, dir string) *results.Tables {
	t.Helper()
	tb, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	null := func(v *float64) {
		if math.IsNaN(*v) {
			*v = -1
		}
	}
	for i := range tb.Runs {
		tb.Runs[i].WallSeconds = 0
		null(&tb.Runs[i].TimeToTarget)
		null(&tb.Runs[i].LossAtBudget)
		null(&tb.Runs[i].SimTime)     // RPD's: it has no timeline
		null(&tb.Runs[i].HeldOutLoss) // a diverged run's
	}
	for i := range tb.Curves {
		null(&tb.Curves[i].ValidationLoss)
		null(&tb.Curves[i].Time)
	}
	return tb
}

// TestSweepSameDataAnyJobsOrShards: the same spec and seed give the same
// tables with --jobs 1, --jobs 2, and as two shards taken from the Slurm
// environment and merged; the curves file is byte-identical.
func TestSweepSameDataAnyJobsOrShards(t *testing.T) {
	spec := writeSpec(t, tinySpec)
	tmp := t.TempDir()
	j1, j2, merged := filepath.Join(tmp, "j1"), filepath.Join(tmp, "j2"), filepath.Join(tmp, "merged")
	pipelab(t, "sweep", spec, "--out", j1, "--jobs", "1")
	pipelab(t, "sweep", spec, "--jobs", "2", "--out", j2)
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
	var shards []string
	for _, i := range []string{"0", "1"} {
		t.Setenv("SLURM_ARRAY_TASK_ID", i)
		dir := filepath.Join(tmp, "shard"+i)
		if out := pipelab(t, "sweep", spec, "--out", dir); !strings.Contains(out, "shard "+i+"/2: 4 of 8 runs") {
			t.Errorf("shard %s reported %q", i, out)
		}
		shards = append(shards, dir)
	}
	pipelab(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
	want := tables(t, j1)
	if len(want.Runs) != 8 || len(want.Curves) == 0 {
		t.Fatalf("%d runs, %d curve points", len(want.Runs), len(want.Curves))
	}
	for _, dir := range []string{j2, merged} {
		if !reflect.DeepEqual(tables(t, dir), want) {
			t.Errorf("%s: tables differ from --jobs 1", dir)
		}
		a, _ := os.ReadFile(filepath.Join(j1, results.CurvesFile))
		b, _ := os.ReadFile(filepath.Join(dir, results.CurvesFile))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: curves.parquet differs from --jobs 1", dir)
		}
	}
	// plot redraws from the tables alone.
	if out := pipelab(t, "plot", merged); !strings.Contains(out, "tiny-unit-final-vs-stages.png") {
		t.Errorf("plot wrote %q", out)
	}
}

// TestSweepRejectsBadSpec: a malformed spec is refused before anything
// runs (no output directory), with the key and the line named.
func TestSweepRejectsBadSpec(t *testing.T) {
	tests := []struct{ name, from, to, want string }{
		{"unknown key", "batch_size: 4", "batchsize: 4", `spec.yaml:6: unknown key "batchsize"`},
		{"bad range", "stages: [2, 4]", "stages: [2, 1]", "spec.yaml:7: stages[1]: stage count 1 is below 2"},
		{"unknown objective", "objectives: [quadratic]", "objectives: [quadratik]", `spec.yaml:3: objectives[0]: unknown objective "quadratik"`},
		{"empty grid", "step_sizes: {values: [0.05, 0.1]}", "step_sizes: {values: []}", "spec.yaml:11: methods[0].step_sizes: empty step-size grid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeSpec(t, strings.Replace(tinySpec, tc.from, tc.to, 1))
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			if code := run([]string{"sweep", spec, "--out", out}, &stdout, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2 (bad input)", code)
			}
			if !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q is not one line containing %q", stderr.String(), tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the output directory exists: %v", err)
			}
		})
	}
}

func TestSweepFlags(t *testing.T) {
	spec := writeSpec(t, tinySpec)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", spec}, "--out is required"},
		{[]string{"sweep", "--out", "x"}, "want one spec file"},
		{[]string{"sweep", spec, "--out", t.TempDir(), "--shard", "2/2"}, "need 0 <= I < N"},
		{[]string{"merge", "--out", "x"}, "no input directories"},
		{[]string{"plot"}, "want one directory"},
		{[]string{"reproduce", "nosuch", "--out", t.TempDir()}, `unknown figure "nosuch"`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to name %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestReproduceDelays runs the quickest figure end to end: tables and
// plots under DIR/delays.
func TestReproduceDelays(t *testing.T) {
	out := t.TempDir()
	pipelab(t, "reproduce", "delays", "--quick", "--out", out, "--jobs", "2")
	for _, f := range []string{results.DelaysFile, "delays.png", "delays.svg"} {
		if _, err := os.Stat(filepath.Join(out, "delays", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestSweepRerunsUnreadableRecord: a resumed sweep runs again the run whose
// record no longer decodes, says so in one line, and ends with the tables
// of the first sweep.
func TestSweepRerunsUnreadableRecord(t *testing.T) {
	spec := writeSpec(t, tinySpec)
	dir := filepath.Join(t.TempDir(), "out")
	pipelab(t, "sweep", spec, "--out", dir, "--jobs", "2")
	want := tables(t, dir)
	recs, err := filepath.Glob(filepath.Join(dir, "runs", "*.gob"))
	if err != nil || len(recs) != 8 {
		t.Fatalf("%d records, want 8 (%v)", len(recs), err)
	}
	if err := os.WriteFile(recs[3], []byte("garbled"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sweep", spec, "--out", dir, "--jobs", "2"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "rerunning 1 run whose record could not be read\n") ||
		!strings.Contains(stdout.String(), "8 of 8 runs (7 resumed, 1 ran)") {
		t.Errorf("stdout %q, stderr %q: want 7 resumed and 1 run again", stdout.String(), stderr.String())
	}
	if !reflect.DeepEqual(tables(t, dir), want) {
		t.Error("the tables differ from the first sweep's")
	}
}

// TestSweepStreamIsItsSpecsTogether: a file of two specs separated by
// "---" sweeps into one set of tables whose runs are those of each spec
// swept alone, and the sweep is named after the file; an error in the
// second spec names its line in the file.
func TestSweepStreamIsItsSpecsTogether(t *testing.T) {
	second := strings.NewReplacer("experiment: tiny", "experiment: tiny-b", "seed: 5", "seed: 6").Replace(tinySpec)
	tmp := t.TempDir()
	stream := filepath.Join(tmp, "both.yaml")
	if err := os.WriteFile(stream, []byte("# two sweeps\n---\n"+tinySpec+"---\n"+second), 0o644); err != nil {
		t.Fatal(err)
	}
	out := pipelab(t, "sweep", stream, "--out", filepath.Join(tmp, "both"), "--jobs", "2")
	if !strings.HasPrefix(out, "sweep both: shard all: 16 of 16 runs") {
		t.Errorf("sweep printed %q", out)
	}
	pipelab(t, "sweep", writeSpec(t, tinySpec), "--out", filepath.Join(tmp, "a"))
	pipelab(t, "sweep", writeSpec(t, second), "--out", filepath.Join(tmp, "b"))
	both, a, b := tables(t, filepath.Join(tmp, "both")), tables(t, filepath.Join(tmp, "a")), tables(t, filepath.Join(tmp, "b"))
	alone := map[string]results.Run{}
	for _, r := range append(a.Runs, b.Runs...) {
		alone[r.RunID] = r
	}
	if len(both.Runs) != 16 || len(alone) != 16 {
		t.Fatalf("%d runs together, %d distinct alone; want 16 and 16", len(both.Runs), len(alone))
	}
	for _, r := range both.Runs {
		if !reflect.DeepEqual(r, alone[r.RunID]) {
			t.Errorf("run %s together differs from the same run swept alone", r.RunID)
		}
	}
	bad := filepath.Join(tmp, "bad.yaml")
	os.WriteFile(bad, []byte("---\n"+tinySpec+"---\n"+strings.Replace(second, "n: 40", "nn: 40", 1)), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sweep", bad, "--out", filepath.Join(tmp, "bad")}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `bad.yaml:20: unknown key "nn"`) {
		t.Errorf("exit %d, stderr %q; want 2 and bad.yaml:20: unknown key \"nn\"", code, stderr.String())
	}
}

// TestPrintSpecPrintsThePresetFiles: --print-spec prints a figure's
// preset file as shipped, comments included, at the size asked for, and
// several figures' files one after another, which read as one stream of
// all their specs.
func TestPrintSpecPrintsThePresetFiles(t *testing.T) {
	file := func(name string, quick bool) ([]byte, int) {
		t.Helper()
		f, err := experiments.LookupFigure(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.PresetFile(quick)
		if err != nil {
			t.Fatal(err)
		}
		specs, err := f.Presets(quick)
		if err != nil {
			t.Fatal(err)
		}
		return b, len(specs)
	}
	full, _ := file("delays", false)
	if got := pipelab(t, "reproduce", "delays", "--print-spec"); got != string(full) {
		t.Errorf("reproduce delays --print-spec printed\n%s\nwant experiments/figures/delays.yaml:\n%s", got, full)
	}
	delays, n1 := file("delays", true)
	schedules, n2 := file("schedules", true)
	got := pipelab(t, "reproduce", "delays", "schedules", "--quick", "--print-spec")
	if want := string(delays) + string(schedules); got != want {
		t.Errorf("reproduce delays schedules --quick --print-spec printed\n%s\nwant the two quick files:\n%s", got, want)
	}
	specs, err := experiments.ParseSpecs("both.yaml", []byte(got))
	if err != nil || len(specs) != n1+n2 {
		t.Errorf("the two files read as %d specs (%v), want %d", len(specs), err, n1+n2)
	}
}

// TestPrintSpecSweepsToTheFigure: a figure's --print-spec, saved and swept,
// gives the tables reproduce writes for the figure (pd-vs-rpd quick: 54
// convergence runs, a grid that extends itself, and their curves).
func TestPrintSpecSweepsToTheFigure(t *testing.T) {
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "pd-vs-rpd.yaml")
	if err := os.WriteFile(spec, []byte(pipelab(t, "reproduce", "pd-vs-rpd", "--quick", "--print-spec")), 0o644); err != nil {
		t.Fatal(err)
	}
	pipelab(t, "reproduce", "pd-vs-rpd", "--quick", "--out", filepath.Join(tmp, "fig"), "--jobs", "2")
	pipelab(t, "sweep", spec, "--out", filepath.Join(tmp, "sweep"), "--jobs", "2")
	fig, swept := tables(t, filepath.Join(tmp, "fig", "pd-vs-rpd")), tables(t, filepath.Join(tmp, "sweep"))
	if len(fig.Runs) == 0 || !reflect.DeepEqual(fig.Runs, swept.Runs) || !reflect.DeepEqual(fig.Curves, swept.Curves) {
		t.Errorf("the swept preset's %d runs and %d curve points differ from reproduce's %d and %d",
			len(swept.Runs), len(swept.Curves), len(fig.Runs), len(fig.Curves))
	}
}
