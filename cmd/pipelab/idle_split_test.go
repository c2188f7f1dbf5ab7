package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// simulate splits each rank's idle time into bubble and comm wait: they
// add up to idle; with free transfers all idle time is bubble, (P - 1)(T_F
// + T_B) per rank for 1F1B (docs/reference.md §2); with transfers some of
// it is comm wait; the text says which is which.
func TestSimulateIdleSplit(t *testing.T) {
	base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "2"}
	var free, comm request.SimulateReport
	runJSON(t, append(slicesClone(base), "--format", "json"), &free)
	runJSON(t, append(slicesClone(base), "--comm", "0.5", "--format", "json"), &comm)
	for _, r := range free.Ranks {
		if r.Bubble != 9 || r.CommWait != 0 {
			t.Errorf("free transfers, rank %d: bubble %g, comm wait %g; want 9 and 0", r.Rank, r.Bubble, r.CommWait)
		}
	}
	waited := 0.0
	for _, r := range comm.Ranks {
		if math.Abs(r.Bubble+r.CommWait-r.Idle) > 1e-12 || r.Bubble < 0 {
			t.Errorf("rank %d: bubble %g + comm wait %g != idle %g", r.Rank, r.Bubble, r.CommWait, r.Idle)
		}
		waited += r.CommWait
	}
	if waited == 0 {
		t.Errorf("transfers of 0.5 left no rank waiting for one: %+v", comm.Ranks)
	}
	var out, errb bytes.Buffer
	if code := run(append(slicesClone(base), "--comm", "0.5"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"bubble   comm wait", "idle = bubble + comm wait", "waiting for a message"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}
