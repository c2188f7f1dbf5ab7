package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// A trace that "simulate --trace" writes, read back with --profile, times
// the schedule as the GPU model it was simulated with did: same makespan,
// bubble and per-rank figures (to the trace's microsecond rounding).
func TestProfileFlagRoundTrip(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	args := []string{"simulate", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--format", "json"}
	var gpu, profiled request.SimulateReport
	runJSON(t, append(slicesClone(args), "--model", "gpt-1.3b", "--gpu", "a100", "--trace", trace), &gpu)
	runJSON(t, append(slicesClone(args), "--profile", trace), &profiled)
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1e-6, math.Abs(b)) }
	if !close(profiled.Makespan, gpu.Makespan) || !close(profiled.BubbleRatio, gpu.BubbleRatio) {
		t.Errorf("profile: makespan %g bubble %g; GPU model: %g %g", profiled.Makespan, profiled.BubbleRatio, gpu.Makespan, gpu.BubbleRatio)
	}
	for r := range gpu.Ranks {
		g, p := gpu.Ranks[r], profiled.Ranks[r]
		if !close(p.Busy, g.Busy) || !close(p.Idle, g.Idle) || !close(p.CommWait, g.CommWait) {
			t.Errorf("rank %d: profile %+v, GPU model %+v", r, p, g)
		}
		// A profile has no memory model, so a split microbatch counts whole
		// until its W: ZB-H1 holds P on every rank. The GPU model counts
		// the M_W it keeps between its I and its W, as its memory does: at
		// most that.
		if p.PeakActivations != 4 || g.PeakActivations > p.PeakActivations || g.PeakActivations <= 0 {
			t.Errorf("rank %d: peak activations %g measured, %g under the GPU model; want P = 4 and at most 4", r, p.PeakActivations, g.PeakActivations)
		}
	}
	if !strings.HasPrefix(profiled.Cost, "measured (") {
		t.Errorf("cost %q", profiled.Cost)
	}
}

// zbCosts writes the Zero Bubble paper's Appendix D profile of the 1.5B
// model (T_F 18.522, T_B 18.086, T_W 9.337 ms; docs/reference.md §5) on
// every one of p stages, with transfers of comm ms.
func zbCosts(t *testing.T, p int, comm string) string {
	var b strings.Builder
	b.WriteString("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n")
	for s := range p {
		c := comm
		if s == p-1 {
			c = ""
		}
		b.WriteString(fmt.Sprintf("%d,18.522,18.086,9.337,%s\n", s, c))
	}
	return writeFile(t, "zb-1.5b.csv", b.String())
}

// --costs with uniform stages: without transfers 1F1B takes the closed
// form (m + p - 1)(T_F + T_B + T_W) (docs/reference.md §2); with them it
// times exactly as the same times given as explicit flags do.
func TestCostsFlag(t *testing.T) {
	base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--format", "json"}
	var free request.SimulateReport
	runJSON(t, append(slicesClone(base), "--costs", zbCosts(t, 4, "0")), &free)
	if want := (8 + 4 - 1) * (18.522 + 18.086 + 9.337) * 1e-3; math.Abs(free.Makespan-want) > 1e-12 {
		t.Errorf("free transfers: makespan %.9g s, want the closed form %.9g", free.Makespan, want)
	}
	var file, flags request.SimulateReport
	runJSON(t, append(slicesClone(base), "--costs", zbCosts(t, 4, "0.601")), &file)
	runJSON(t, append(slicesClone(base), "--fwd", "0.018522", "--bwd", "0.018086", "--wgrad", "0.009337", "--comm", "0.000601"), &flags)
	if math.Abs(file.Makespan-flags.Makespan) > 1e-12 || file.Makespan <= free.Makespan {
		t.Errorf("makespan %.9g s from the file, %.9g from the flags, %.9g without transfers", file.Makespan, flags.Makespan, free.Makespan)
	}
}

// Bad measured input: exit 2 and a first line naming the flag and field.
func TestMeasuredFlagErrors(t *testing.T) {
	three := writeFile(t, "three.csv", "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,1,1,1,0.1\n1,1,1,1,0.1\n2,1,1,1,\n")
	noRegions := writeFile(t, "empty.json", `{"traceEvents": [{"ph": "X", "name": "aten::mm", "dur": 4}]}`)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "4", "--costs", three}, []string{"--costs", "three.csv", "3 stages measured, the table has 4"}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--profile", noRegions}, []string{"--profile", "empty.json", "no regions named PP:"}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "3", "--microbatches", "4", "--costs", three, "--model", "llama-7b"}, []string{"exclude"}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "3", "--microbatches", "4", "--costs", three, "--profile", noRegions}, []string{"--costs and --profile exclude each other"}},
	}
	for _, tt := range tests {
		refusedAsBadInput(t, tt.args, tt.want...)
	}
}

// tune --costs picks among the schedules with the measured stage count;
// with the Zero Bubble 1.5B profile on 8 ranks ZB-H2 beats the 1F1B
// baseline (pipeline/tune's TestTuneMeasured has the closed forms).
func TestTuneCostsFlag(t *testing.T) {
	var rep request.TunePipelineReport
	runJSON(t, []string{"tune", "--ranks", "8", "--microbatches", "24", "--costs", zbCosts(t, 8, "0.601"), "--format", "json"}, &rep)
	if rep.Kind != "zb-h2" || rep.BaselineKind != "1f1b" || rep.Speedup <= 1 || rep.Microbatches != 24 {
		t.Errorf("tuned %+v", rep)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"tune", "--ranks", "3", "--costs", zbCosts(t, 8, "0.601")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "8 measured stages do not split over 3 ranks") {
		t.Errorf("8 stages on 3 ranks: exit %d, %q", code, errb.String())
	}
}
