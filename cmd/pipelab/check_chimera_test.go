package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// TestCheckChimera writes Chimera schedules with "pipelab schedule --format
// csv", compute only and with --comms, and checks them: PyTorch's CSV
// carries no routes, so check must infer them from the cells (ReadCSV) and
// lower and step each microbatch along its own pipeline. The step count
// must be the one the library gives for the generated table, lowered as
// check lowers (bubbles dropped, I/W merged, then Lower) or, for the comms
// file, as written. For P = 2, M = 2 that count is 10 either way: the
// table has no bubbles, and TestLockstepChimera in package pipeline steps
// its lowered form by hand.
func TestCheckChimera(t *testing.T) {
	for _, sh := range []pipeline.Shape{{Ranks: 2, Microbatches: 2}, {Ranks: 2, Microbatches: 6}, {Ranks: 4, Microbatches: 4}, {Ranks: 4, Microbatches: 12}} {
		gen, err := pipeline.Generate("chimera", sh)
		if err != nil {
			t.Fatal(err)
		}
		for _, comms := range []bool{false, true} {
			name := fmt.Sprintf("chimera_P%d_M%d_comms=%v", sh.Ranks, sh.Microbatches, comms)
			want := request.CheckReport{CSVFormat: "compute_only", Ranks: sh.Ranks, Stages: 2 * sh.Ranks, Microbatches: sh.Microbatches}
			lowered, err := pipeline.Lower(pipeline.MergeIW(gen))
			if comms {
				want.CSVFormat = "compute_comms"
				lowered, err = pipeline.Lower(gen)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want.Steps, err = pipeline.Lockstep(lowered); err != nil {
				t.Fatalf("%s: library: %v", name, err)
			}
			if sh == (pipeline.Shape{Ranks: 2, Microbatches: 2}) && want.Steps != 10 {
				t.Errorf("%s: library gives %d steps, want 10 (TestLockstepChimera)", name, want.Steps)
			}
			file := writeChimera(t, name, sh, comms)
			var out, errb bytes.Buffer
			if code := run([]string{"check", file, "--format", "json"}, &out, &errb); code != 0 {
				t.Errorf("%s: check: exit %d, stderr %q", name, code, errb.String())
				continue
			}
			var got request.CheckReport
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%s: output %q is not JSON: %v", name, out.String(), err)
			}
			if got != want {
				t.Errorf("%s: report %+v, want %+v", name, got, want)
			}
		}
	}
}

// writeChimera runs "pipelab schedule --kind chimera --format csv" and
// saves what it prints as a file.
func writeChimera(t *testing.T, name string, sh pipeline.Shape, comms bool) string {
	t.Helper()
	args := []string{"schedule", "--kind", "chimera", "--ranks", fmt.Sprint(sh.Ranks),
		"--microbatches", fmt.Sprint(sh.Microbatches), "--format", "csv", fmt.Sprintf("--comms=%v", comms)}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
	}
	path := filepath.Join(t.TempDir(), name+".csv")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
