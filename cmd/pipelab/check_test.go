package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

const torchFixtures = "../../pipeline/testdata/torch"

// writeFile writes a schedule file into a temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckFixtures(t *testing.T) {
	// Both fixtures are PyTorch's 2-rank, 4-stage, 8-microbatch interleaved
	// zero-bubble schedule; its test_csv simulates the lowered schedule in
	// 113 steps (docs/reference.md §3). The 2-rank example of test_send_recv
	// takes 11 steps when lowered with its bubbles; check drops them first,
	// as PyTorch's runtime does, which gives 10 steps (stepped by hand in
	// pipeline's TestLowerWithoutBubbles and TestLockstepSteps).
	simple := writeFile(t, "simple.csv", "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n")
	tests := []struct {
		args []string
		want request.CheckReport
	}{
		{[]string{filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv"), "--format", "json"},
			request.CheckReport{CSVFormat: "compute_only", Ranks: 2, Stages: 4, Microbatches: 8, Steps: 113}},
		{[]string{"--format=json", filepath.Join(torchFixtures, "zb1p_2rank_2stagep_comms.csv")},
			request.CheckReport{CSVFormat: "compute_comms", Ranks: 2, Stages: 4, Microbatches: 8, Steps: 113}},
		{[]string{simple, "--format", "json"},
			request.CheckReport{CSVFormat: "compute_only", Ranks: 2, Stages: 2, Microbatches: 2, Steps: 10}},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := run(append([]string{"check"}, tc.args...), &out, &errb); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errb.String())
			continue
		}
		var got request.CheckReport
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Errorf("%v: output %q is not JSON: %v", tc.args, out.String(), err)
			continue
		}
		if got != tc.want {
			t.Errorf("%v: report %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"check", filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv")}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	want := "format:       compute_only\nranks:        2\nstages:       4\nmicrobatches: 8\nsteps:        113\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
}

func TestCheckMergeFlag(t *testing.T) {
	// Without merging, each rank still runs its 48 compute actions (2
	// stages x 8 microbatches x F, I, W) one per step at most, so the check
	// must succeed in at least 48 steps.
	fixture := filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv")
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--merge-iw=false", "--format", "json", fixture}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got request.CheckReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.CSVFormat != "compute_only" || got.Ranks != 2 || got.Stages != 4 || got.Microbatches != 8 || got.Steps < 48 {
		t.Errorf("unmerged report %+v, want compute_only, 2 ranks, 4 stages, 8 microbatches, at least 48 steps", got)
	}
}

func TestCheckRejects(t *testing.T) {
	bad := writeFile(t, "bad.csv", "0F0,0F1\r\n1F0,1Q0\r\n")
	split := writeFile(t, "split.csv", "0F0,1F0\n,1B0\n")
	bubbly := writeFile(t, "bubbly.csv", "0F0,0SEND_F0,,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n")
	stuck := writeFile(t, "stuck.csv", "0RECV_B0,0F0,0SEND_F0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad action", []string{bad}, 2, bad + ":2: cell 2: \"1Q0\" is not an action"},
		{"stage on two ranks", []string{split}, 2, split + ":2: cell 2: stage 1 is on rank 1 here and on rank 0 at line 1, cell 2"},
		{"bubble in comms file", []string{bubbly}, 2, bubbly + ":1: cell 3: empty cell in a compute_comms file"},
		{"deadlock", []string{stuck}, 2, "deadlock at step 0: rank 0 at 0RECV_B0 waits for 1SEND_B0; rank 1 at 1RECV_F0 waits for 0SEND_F0"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.csv")}, 2, "none.csv"},
		{"no file", nil, 2, "want exactly one FILE.csv"},
		{"two files", []string{bad, split}, 2, "want exactly one FILE.csv"},
		{"bad format", []string{bad, "--format", "yaml"}, 2, "--format must be text or json"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"check"}, tc.args...), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, errb.String(), tc.code, tc.want)
		}
	}
}

func TestCheckHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--help"}, &out, &errb); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	if !strings.Contains(out.String(), "usage: pipelab check FILE.csv") || !strings.Contains(out.String(), "--merge-iw") || errb.Len() > 0 {
		t.Errorf("--help printed %q to stdout and %q to stderr", out.String(), errb.String())
	}
}

// TestCheckValidates runs the malformed example and one file per
// rule of PyTorch's _validate_schedule through "pipelab check": each is
// refused before lowering with the file, line, cell and rule (the rules
// themselves are tested in pipeline's TestValidateCSVRefuses).
func TestCheckValidates(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"B without F", "0F0,,0B0\r\n,1B0\r\n", ":2: cell 2: 1B0 before 1F0, or without it (rule: a B or I comes after the F"},
		{"W without I", "0F0,0W0\r\n", ":1: cell 2: 0W0 before 0I0, or without it (rule: a W comes after the I"},
		{"B and I", "0F0,0B0,0I0,0W0\r\n", ":1: cell 3: 0I0 after 0B0 at cell 2 (rule: a microbatch is backwarded on a stage by one B or by one I and one W"},
		{"never backwarded", "0F0,0F1,0B0\r\n", ":1: cell 2: 0F1 is never backwarded"},
		{"missing forward", "0F0,0F1,0B0,0B1\r\n,1F0,1B0\r\n", ":2: cell 2: stage 1 forwards 1 of its 2 microbatches: microbatch 1 has no 1F1"},
		{"I without W", "0F0,0I0\r\n", ":1: cell 2: 0I0 has no 0W0: stage 0 runs 1 I but 0 W"},
	}
	for _, tc := range tests {
		path := writeFile(t, "bad.csv", tc.in)
		var out, errb bytes.Buffer
		if code := run([]string{"check", path}, &out, &errb); code != 2 || !strings.Contains(errb.String(), path+tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 (bad input) and %q", tc.name, code, errb.String(), path+tc.want)
		}
		if out.Len() > 0 {
			t.Errorf("%s: printed %q for a refused file", tc.name, out.String())
		}
	}
}

// checkJSON runs "pipelab check --format json" with args and the given
// standard input, and decodes the report.
func checkJSON(t *testing.T, stdin string, args ...string) request.CheckReport {
	t.Helper()
	defer func(r io.Reader) { checkStdin = r }(checkStdin)
	checkStdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	if code := run(append([]string{"check", "--format", "json"}, args...), &out, &errb); code != 0 {
		t.Fatalf("check %v: exit %d, stderr %q", args, code, errb.String())
	}
	var got request.CheckReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("check %v: output %q is not JSON: %v", args, out.String(), err)
	}
	return got
}

// TestCheckRoundTrips covers the files check used to misread.
func TestCheckRoundTrips(t *testing.T) {
	// A single rank's split-backward schedule as "schedule --comms" prints
	// it: one stage, so no SEND or RECV, and no bubbles. It is already
	// lowered, so check steps it as it is, one action a step: 4 microbatches
	// x (F, I, W) = 12 steps, as PyTorch's _simulate_comms_compute counts
	// it, not 8 after merging I and W.
	var csv, errb bytes.Buffer
	if code := run([]string{"schedule", "--kind", "zb-h1", "--ranks", "1", "--microbatches", "4", "--comms", "--format", "csv"}, &csv, &errb); code != 0 {
		t.Fatalf("schedule: exit %d, %s", code, errb.String())
	}
	if got, want := checkJSON(t, "", writeFile(t, "a.csv", csv.String())), (request.CheckReport{CSVFormat: "compute_comms", Ranks: 1, Stages: 1, Microbatches: 4, Steps: 12}); got != want {
		t.Errorf("zb-h1 on one rank, --comms: %+v, want %+v", got, want)
	}

	// GPipe on 2 ranks with 2 microbatches as newer PyTorch builds its
	// order (_add_reduce_grad: bubbles dropped, a REDUCE_GRAD after each
	// stage's last backward). It has no SEND or RECV, so it is a compute
	// order to lower, not a compute_comms file that deadlocks. REDUCE_GRAD
	// runs at once: rank 1 runs its own in a step in which it waits anyway,
	// and rank 0's comes after its last backward, which ends the schedule,
	// so the count is the one without REDUCE_GRAD plus one.
	plain := checkJSON(t, "", writeFile(t, "g.csv", "0F0,0F1,0B0,0B1\r\n1F0,1F1,1B0,1B1\r\n"))
	reduce := checkJSON(t, "", writeFile(t, "gr.csv", "0F0,0F1,0B0,0B1,0REDUCE_GRAD\r\n1F0,1F1,1B0,1B1,1REDUCE_GRAD\r\n"))
	if reduce.CSVFormat != "compute_only" || reduce.Steps != plain.Steps+1 {
		t.Errorf("with REDUCE_GRAD: %+v; want compute_only and %d steps (%d without it, plus one)", reduce, plain.Steps+1, plain.Steps)
	}

	// A byte order mark, as spreadsheet programs write, changes nothing;
	// "-" reads standard input and names it in messages.
	simple := "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n"
	want := checkJSON(t, "", writeFile(t, "s.csv", simple))
	if got := checkJSON(t, "", writeFile(t, "bom.csv", "\ufeff"+simple)); got != want {
		t.Errorf("with a byte order mark: %+v, want %+v", got, want)
	}
	if got := checkJSON(t, simple, "-"); got != want {
		t.Errorf("from standard input: %+v, want %+v", got, want)
	}
	defer func(r io.Reader) { checkStdin = r }(checkStdin)
	checkStdin = strings.NewReader("0F0,,0B0\r\n,1B0\r\n")
	var out bytes.Buffer
	errb.Reset()
	if code := run([]string{"check", "-"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "<stdin>:2: cell 2: 1B0 before 1F0") {
		t.Errorf("malformed standard input: exit %d, stderr %q", code, errb.String())
	}
}
