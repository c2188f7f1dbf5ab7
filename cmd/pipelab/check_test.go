package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		want checkReport
	}{
		{[]string{filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv"), "--format", "json"},
			checkReport{Format: "compute_only", Ranks: 2, Stages: 4, Microbatches: 8, Steps: 113}},
		{[]string{"--format=json", filepath.Join(torchFixtures, "zb1p_2rank_2stagep_comms.csv")},
			checkReport{Format: "compute_comms", Ranks: 2, Stages: 4, Microbatches: 8, Steps: 113}},
		{[]string{simple, "--format", "json"},
			checkReport{Format: "compute_only", Ranks: 2, Stages: 2, Microbatches: 2, Steps: 10}},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := run(append([]string{"check"}, tc.args...), &out, &errb); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errb.String())
			continue
		}
		var got checkReport
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
	var got checkReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != "compute_only" || got.Ranks != 2 || got.Stages != 4 || got.Microbatches != 8 || got.Steps < 48 {
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
		{"bad action", []string{bad}, 1, bad + ":2: cell 2: \"1Q0\" is not an action"},
		{"stage on two ranks", []string{split}, 1, split + ":2: cell 2: stage 1 is on rank 1 here and on rank 0 at line 1, cell 2"},
		{"bubble in comms file", []string{bubbly}, 1, bubbly + ":1: cell 3: empty cell in a compute_comms file"},
		{"deadlock", []string{stuck}, 1, "deadlock at step 0: rank 0 at 0RECV_B0 waits for 1SEND_B0; rank 1 at 1RECV_F0 waits for 0SEND_F0"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.csv")}, 1, "none.csv"},
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
	if !strings.Contains(errb.String(), "usage: pipelab check FILE.csv") || !strings.Contains(errb.String(), "-merge-iw") {
		t.Errorf("--help printed %q", errb.String())
	}
}
