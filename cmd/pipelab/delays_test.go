package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// PipeDream with S = 4 and N = 10S (docs/reference.md §1.3): steady-state
// maximum ⌊S² - S/2⌋ = 14 and mean 7.55 (measured with the reference
// code); per stage, the last stage runs B(m) the step after F(m), so its
// own block's delay stays below S; every update is counted once.
func TestDelaysCommandPerStage(t *testing.T) {
	var rep request.DelaysReport
	runJSON(t, []string{"delays", "--ranks", "4", "--format", "json"}, &rep)
	if rep.Kind != "pipedream" || rep.Max != 14 || rep.Mean != 7.55 || rep.Updates != 160 || rep.TimeSteps != 86 {
		t.Errorf("%+v: want pipedream, max 14, mean 7.55, 160 updates, 2N+2S-2 = 86 steps", rep)
	}
	if len(rep.PerStage) != 4 {
		t.Fatalf("%d stages profiled, want 4", len(rep.PerStage))
	}
	updates := 0
	for _, s := range rep.PerStage {
		updates += s.Updates
		if s.Max > rep.Max || float64(s.Max) < s.Mean || float64(s.Max) < s.P10 {
			t.Errorf("stage %+v: want mean and p10 at most max, at most %d", s, rep.Max)
		}
	}
	if updates != rep.Updates-rep.Updates/2 {
		t.Errorf("per-stage updates add up to %d, want the steady half's %d", updates, rep.Updates-rep.Updates/2)
	}
	if last := rep.PerStage[3]; last.Max >= 4 {
		t.Errorf("last stage's own delay up to %d, want below S = 4", last.Max)
	}
}

// A table read from its CSV is timed by the event simulation at unit cost,
// which for PipeDream's table is its grid: the profile is the generated
// family's.
func TestDelaysCommandScheduleFile(t *testing.T) {
	var csv, errb bytes.Buffer
	if code := run([]string{"schedule", "--kind", "pipedream", "--ranks", "3", "--total-microbatches", "12", "--format", "csv"}, &csv, &errb); code != 0 {
		t.Fatalf("schedule: exit %d, %s", code, errb.String())
	}
	path := filepath.Join(t.TempDir(), "pd.csv")
	if err := os.WriteFile(path, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var gen, file request.DelaysReport
	runJSON(t, []string{"delays", "--kind", "pipedream", "--ranks", "3", "--total-microbatches", "12", "--format", "json"}, &gen)
	runJSON(t, []string{"delays", "--schedule", path, "--format", "json"}, &file)
	file.Kind, file.Schedule = gen.Kind, gen.Schedule
	// A CSV names no family, so its count is reported as microbatches;
	// the generated pipedream's is its total N.
	file.Total, file.Microbatches = file.Microbatches, 0
	if !reflect.DeepEqual(gen, file) {
		t.Errorf("from the file %+v, generated %+v", file, gen)
	}
}

func TestDelaysCommandRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"delays", "--schedule", "x.csv", "--ranks", "4"}, 2, "--schedule reads the shape"},
		{[]string{"delays"}, 2, "--ranks"},
		{[]string{"delays", "--kind", "nope", "--ranks", "4"}, 2, "--kind"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d naming %q and no output", c.args, code, errb.String(), out.String(), c.code, c.want)
		}
	}
}

// TestDelaysSplitBackward: a split-backward table's updates land at its W
// passes (the asynchronous replay's rule), so ZB-H1 with P = 4 and M = 8
// counts P·M = 32 block updates, one per W.
func TestDelaysSplitBackward(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"delays", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"block_updates": 32`) {
		t.Errorf("zb-h1 P 4 M 8 does not count 32 block updates:\n%s", out.String())
	}
	// The help says what the command does with such a table (issue 25:
	// it said they were refused).
	if _, help, _ := runCLI("delays", "--help"); strings.Contains(help, "refused") || !strings.Contains(help, "is accepted: the block update is\nthe W") {
		t.Errorf("delays --help does not say split-backward tables are accepted, updating at W:\n%s", help)
	}
}
