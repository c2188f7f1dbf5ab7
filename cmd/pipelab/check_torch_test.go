package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// PyTorch's test_send_recv (test/distributed/pipelining/test_schedule.py,
// case v_2_rank_4_stage; pipeline/testdata/torch/README.md) lowers a
// compute order in which stages 0 and 3 run a whole backward B and then a
// W of the same microbatch, and expects its unit-time simulator to take 24
// steps on the lowered order. That test never validates: PyTorch's loader
// runs _validate_schedule first, which refuses a W whose I has not run
// ("Running Backward Weight for stage 3, microbatch 0 without first running
// Backward Input"), so the same file does not load. check agrees with
// both: it refuses the file as the loader does, naming the B, and with
// --validate=false steps the lowered order in PyTorch's 24 steps.
func TestCheckTorchVTwoRanks(t *testing.T) {
	compute := filepath.Join(torchFixtures, "v_2rank_4stage_compute.csv")
	comms := filepath.Join(torchFixtures, "v_2rank_4stage_comms.csv")
	for _, c := range []struct{ file, cell string }{{compute, "cell 9"}, {comms, "cell 15"}} {
		code, out, errs := runCLI("check", c.file)
		want := c.cell + ": 3W0 after 3B0"
		if code != 2 || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, "3W0 has no 3I0") {
			t.Errorf("check %s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.file, code, out, firstLine(errs), want)
		}
	}
	got := checkJSON(t, "", comms, "--validate=false")
	if got.Steps != 24 || got.CSVFormat != "compute_comms" || got.Ranks != 2 || got.Stages != 4 || got.Microbatches != 2 {
		t.Errorf("check --validate=false %s: %+v; want PyTorch's 24 steps on 2 ranks, 4 stages, 2 microbatches", comms, got)
	}
	if got := checkJSON(t, "", compute, "--validate=false"); got.CSVFormat != "compute_only" || got.Stages != 4 {
		t.Errorf("check --validate=false %s: %+v; want it lowered and stepped", compute, got)
	}
}

// --ranks refuses a file whose rank count is not the pipeline group's, as
// PyTorch's _validate_schedule refuses a schedule with "incorrect number
// of ranks - expected N, actual M"; the file's own count passes.
func TestCheckRanks(t *testing.T) {
	file := filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv")
	if got := checkJSON(t, "", file, "--ranks", "2"); got.Ranks != 2 || got.Steps != 113 {
		t.Errorf("check --ranks 2: %+v; want the fixture's 2 ranks and PyTorch's 113 steps", got)
	}
	for _, c := range []struct {
		ranks, want string
	}{
		{"3", ":3: cell 1: the schedule has 2 ranks (one per line), expected 3: rank 2 has no line"},
		{"4", ":3: cell 1: the schedule has 2 ranks (one per line), expected 4: ranks 2 to 3 have no line"},
		{"1", ":2: cell 1: the schedule has 2 ranks (one per line), expected 1: line 2 is rank 1, beyond the last"},
		{"-1", "--ranks must be at least 1 (0 for the file's lines), got -1"},
	} {
		code, out, errs := runCLI("check", file, "--ranks", c.ranks)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("check --ranks %s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.ranks, code, out, firstLine(errs), c.want)
		}
	}
}
