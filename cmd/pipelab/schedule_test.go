package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// runCLI runs pipelab in process and returns its exit code and output.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestSchedulePipeDreamText prints S = 4, N = 12 PipeDream, whose whole
// run is 2N + 2S - 2 = 30 steps: the grid must be the text of docs/reference.md
// §1.2 (the pipeline package's golden file).
func TestSchedulePipeDreamText(t *testing.T) {
	code, out, errs := runCLI("schedule", "--kind", "pipedream", "--ranks", "4", "--total-microbatches", "12")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := os.ReadFile("../../pipeline/testdata/gen_pipedream_s4_n12.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestScheduleCSV checks the CSV output of 1F1B with P = 2, M = 2. The
// compute_only file is Schedule1F1B's pipeline_order (schedules.py): rank
// 0 runs P-1-r = 1 warm-up forward, waits 2(P-1-r) = 2 cells, runs the pair
// F1, B0 and one bubble before its cool-down B1; rank 1 waits r = 1 cell and
// alternates F and B (PyTorch numbers its forwards 1, 2; pipelab keeps 0, 1;
// docs/csv.md). --comms lowers the generated table as before, to the rows
// of PyTorch's own 2-rank lowering test (docs/reference.md §3).
func TestScheduleCSV(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "csv"}, "0F0,,,0F1,0B0,,0B1\r\n,1F0,1B0,1F1,1B1\r\n"},
		{[]string{"--format=csv", "--comms"},
			"0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\r\n" +
				"1RECV_F0,1RECV_F1,1F0,1B0,1SEND_B0,1F1,1B1,1SEND_B1\r\n"},
	} {
		args := append([]string{"schedule", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2"}, tc.args...)
		code, out, errs := runCLI(args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d (%s)\n got %q\nwant %q", tc.args, code, errs, out, tc.want)
		}
	}
}

// TestScheduleFlagsReachTheGenerator checks that --chunks, --replicas,
// --local-steps and --noam arrive: the printed grid has the step count the
// family's closed form gives (interleaved 2MV + 2(P-1); LocalSGD and
// PipeDream from docs/reference.md §1.5 and §1.2).
func TestScheduleFlagsReachTheGenerator(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		columns int
	}{
		{[]string{"--kind", "interleaved-1f1b", "--ranks", "2", "--microbatches", "4", "--chunks", "3"}, 2*4*3 + 2*(2-1)},
		{[]string{"--kind", "pipedream", "--ranks", "3", "--total-microbatches", "4", "--noam", "1"}, 2 * 3 * 4},
		{[]string{"--kind", "localsgd", "--ranks", "2", "--total-microbatches", "6", "--replicas", "2", "--local-steps", "2"}, 1*(2*4+2*2-2) + (2*2 + 2*2 - 2)},
	} {
		code, out, errs := runCLI(append([]string{"schedule"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		line := strings.SplitN(out, "\n", 2)[0]
		if got := len(strings.Fields(line)) - 2; got != tc.columns { // "rank 0:" is two fields
			t.Errorf("%v: %d columns in %q, want %d", tc.args, got, line, tc.columns)
		}
	}
}

// TestScheduleRejects checks that bad values exit non-zero and name the
// flag (or, for a shape the family refuses, the family's constraint).
func TestScheduleRejects(t *testing.T) {
	base := []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--kind", "1f1b", "--ranks", "0", "--microbatches", "8"}, 2, "--ranks"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "-1"}, 2, "--microbatches"},
		{[]string{"--kind", "no-such", "--ranks", "4", "--microbatches", "8"}, 2, "--kind"},
		{[]string{"--ranks", "4", "--microbatches", "8"}, 2, "--kind"},
		{append(base, "--format", "xml"), 2, "--format"},
		{append(base, "--noam", "2"), 2, "--noam"},
		{append(base, "--local-steps", "2"), 2, "--local-steps"},
		{append(base, "--chunks", "-2"), 2, "--chunks"},
		{[]string{"--kind", "localsgd", "--ranks", "4", "--total-microbatches", "8"}, 2, "--local-steps"},
		{append(base, "extra"), 2, "unexpected argument"},
		{[]string{"--kind", "1f1b", "--ranks", "x"}, 2, "--ranks"},
		{[]string{"--kind", "chimera", "--ranks", "3", "--microbatches", "6"}, 2, "even number of ranks"},
	} {
		code, _, errs := runCLI(append([]string{"schedule"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

func TestScheduleHelp(t *testing.T) {
	code, out, _ := runCLI("schedule", "--help")
	if code != 0 || !strings.Contains(out, "--microbatches") {
		t.Errorf("exit %d, help %q", code, out)
	}
}

// TestScheduleDualPipeVCSVRoundTrip writes DualPipeV (P = 3, M = 8) as CSV,
// with and without --comms, reads it back and checks it. The compute_only
// file must hold the overlapped chunks as OVERLAP_F_B cells, as many as
// the phases of DeepSeek's dualpipev.py give: on rank r, 2(M - 2P + r + 1)
// in the main phase (one fewer on the last rank, which runs its first pair
// apart) and P - r - 1 after it: (6 + 2) + (8 + 1) + (10 - 1) = 26 here. Read back, it is
// the generated table cell for cell without its bubbles (PyTorch's order
// has none), and "pipelab check" reports the shape
// and the lockstep step count of the table it came from, lowered the way
// check lowers each format.
func TestScheduleDualPipeVCSVRoundTrip(t *testing.T) {
	const p, m = 3, 8
	gen, err := pipeline.Generate("dualpipev", pipeline.Shape{Ranks: p, Microbatches: m})
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"schedule", "--kind", "dualpipev", "--ranks", "3", "--microbatches", "8", "--format", "csv"}
	code, out, errs := runCLI(base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := strings.Count(out, ")OVERLAP_F_B"); got != 26 {
		t.Errorf("%d OVERLAP_F_B cells, want 26", got)
	}
	back, err := pipeline.ReadCSV(strings.NewReader(out), "dualpipev.csv")
	if err != nil {
		t.Fatalf("reading the CSV back: %v", err)
	}
	if len(back.Rows) != len(gen.Rows) || !slices.Equal(back.Placement, gen.Placement) || back.Microbatches != m {
		t.Fatalf("read back %d rows, placement %v, %d microbatches; want %d, %v, %d",
			len(back.Rows), back.Placement, back.Microbatches, len(gen.Rows), gen.Placement, m)
	}
	// PyTorch's DualPipeV order has no bubbles: the file is the
	// generated rows without theirs.
	for r, want := range pipeline.DropBubbles(gen).Rows {
		if !slices.Equal(back.Rows[r], want) {
			t.Errorf("rank %d read back as %v, want %v", r, back.Rows[r], want)
		}
	}
	// check merges adjacent I and W and drops bubbles before lowering a
	// compute_only file, and runs a compute_comms file as written.
	lowered, err := pipeline.Lower(pipeline.MergeIW(gen))
	if err != nil {
		t.Fatal(err)
	}
	computeSteps, err := pipeline.Lockstep(lowered)
	if err != nil {
		t.Fatal(err)
	}
	withComms, err := pipeline.Lower(gen)
	if err != nil {
		t.Fatal(err)
	}
	commsSteps, err := pipeline.Lockstep(withComms)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		extra  []string
		format string
		steps  int
	}{{nil, "compute_only", computeSteps}, {[]string{"--comms"}, "compute_comms", commsSteps}} {
		code, csv, errs := runCLI(append(base, tc.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.extra, code, errs)
		}
		file := writeFile(t, "dualpipev.csv", csv)
		code, rep, errs := runCLI("check", file, "--format", "json")
		if code != 0 {
			t.Errorf("%v: check: exit %d: %s", tc.extra, code, errs)
			continue
		}
		var got request.CheckReport
		if err := json.Unmarshal([]byte(rep), &got); err != nil {
			t.Fatalf("check output %q: %v", rep, err)
		}
		want := request.CheckReport{CSVFormat: tc.format, Ranks: p, Stages: 2 * p, Microbatches: m, Steps: tc.steps}
		if got != want {
			t.Errorf("%v: check reports %+v, want %+v", tc.extra, got, want)
		}
	}
}

// TestScheduleDualPipeVMatchesPyTorch runs the command and compares
// its output with PyTorch's DualPipeV artifact (4 ranks, 10 microbatches;
// pipeline/testdata/torch, saved with "\n" line ends) cell for cell.
func TestScheduleDualPipeVMatchesPyTorch(t *testing.T) {
	code, out, errs := runCLI("schedule", "--kind", "dualpipev", "--ranks", "4", "--chunks", "2", "--microbatches", "10", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(filepath.Join(torchFixtures, "dualpipev_4rank_10mb.csv"))
	if err != nil {
		t.Fatal(err)
	}
	gotRows, wantRows := strings.Split(out, "\r\n"), strings.Split(string(want), "\n")
	if len(gotRows) != len(wantRows) {
		t.Fatalf("%d lines, want %d", len(gotRows), len(wantRows))
	}
	for i := range wantRows {
		if g, w := strings.Split(gotRows[i], ","), strings.Split(wantRows[i], ","); !slices.Equal(g, w) {
			t.Errorf("line %d: %d cells %q, want %d cells %q", i+1, len(g), g, len(w), w)
		}
	}
}
