package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// --cap +K caps each rank at its fixed-order peak plus K (1F1B, P = 4:
// rank r's peak is 4 - r, docs/reference.md §2), --cap +0 is the default
// cap, and --cap N caps every rank at N.
func TestSimulateCapSlack(t *testing.T) {
	peaks := func(args ...string) []int {
		t.Helper()
		base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "12", "--straggler", "3:3",
			"--policy", "ready", "--patience", "none", "--format", "json"}
		code, out, errs := runCLI(append(base, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var rep request.SimulateReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var p []int
		for _, r := range rep.Ranks {
			p = append(p, int(r.PeakActivations)) // 1F1B: one chunk per rank, so whole M_B
		}
		return p
	}
	def := peaks()
	for k := range 4 {
		got := peaks("--cap", "+"+strconv.Itoa(k))
		for r, n := range got {
			if n > 4-r+k {
				t.Errorf("--cap +%d: rank %d holds %d, above %d", k, r, n, 4-r+k)
			}
		}
		if got[0] != 4+k {
			t.Errorf("--cap +%d: rank 0 holds at most %d, want %d behind the slow rank 3", k, got[0], 4+k)
		}
		if k == 0 && !slices.Equal(got, def) {
			t.Errorf("--cap +0 gives peaks %v, the default %v", got, def)
		}
	}
	for r, n := range peaks("--cap", "2") {
		if n > 2 {
			t.Errorf("--cap 2: rank %d holds %d", r, n)
		}
	}
}
