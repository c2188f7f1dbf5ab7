package main

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// simulate and compare give peak activations in one unit, M_B
// (microbatches of a rank's share of the model): interleaved 1F1B with
// P = 4, V = 2, M = 8 holds (2(P - 1) + (V - 1)P + 1)/V = 5.5 on rank 0
// (the closed form of TestCompareCommand), where the count of chunk
// activations would be 11. compare prints the same number for the family.
func TestPeakActivationsOneUnit(t *testing.T) {
	var sim request.SimulateReport
	runJSON(t, []string{"simulate", "--kind", "interleaved-1f1b", "--chunks", "2", "--ranks", "4", "--microbatches", "8", "--format", "json"}, &sim)
	var cmp request.CompareReport
	runJSON(t, []string{"compare", "--ranks", "4", "--microbatches", "8", "--kind", "interleaved-1f1b:2", "--format", "json"}, &cmp)
	if len(sim.Ranks) != 4 || len(cmp.Families) != 1 {
		t.Fatalf("%d ranks, %d families", len(sim.Ranks), len(cmp.Families))
	}
	if sim.Ranks[0].PeakActivations != 5.5 || cmp.Families[0].PeakActivations != 5.5 {
		t.Errorf("rank 0: simulate %g, compare %g M_B; want 5.5", sim.Ranks[0].PeakActivations, cmp.Families[0].PeakActivations)
	}
	_, text, _ := runCLI("simulate", "--kind", "interleaved-1f1b", "--chunks", "2", "--ranks", "4", "--microbatches", "8")
	if !strings.Contains(text, "peak act (M_B)") {
		t.Errorf("simulate's rank table does not name the unit:\n%s", text)
	}
}

// Under the GPU model simulate and compare mark what does not fit in the
// GPU's memory: GPipe holds all 64 microbatches of GPT 1.3B (s = 2048) on
// every rank, about 175 GiB against the A100's 80 GB, while 1F1B with 4
// microbatches holds at most 4.
func TestOverMemoryMarked(t *testing.T) {
	gpu := []string{"--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink", "--format", "json"}
	var big, small request.SimulateReport
	runJSON(t, append([]string{"simulate", "--kind", "gpipe", "--ranks", "4", "--microbatches", "64"}, gpu...), &big)
	runJSON(t, append([]string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "4"}, gpu...), &small)
	// The A100 preset's memory: 80 GB (NVIDIA's datasheet), 74.5 GiB.
	if big.MemoryLimit != 80e9 {
		t.Errorf("memory limit %g bytes, want the A100's 80e9", big.MemoryLimit)
	}
	for _, r := range big.Ranks {
		if !r.OverMemory || !(r.PeakMemoryBytes > big.MemoryLimit) {
			t.Errorf("gpipe M = 64, rank %d: peak %g bytes, limit %g, over %v; want marked over", r.Rank, r.PeakMemoryBytes, big.MemoryLimit, r.OverMemory)
		}
	}
	for _, r := range small.Ranks {
		if r.OverMemory {
			t.Errorf("1f1b M = 4, rank %d: peak %g bytes marked over %g", r.Rank, r.PeakMemoryBytes, small.MemoryLimit)
		}
	}
	_, text, _ := runCLI("simulate", "--kind", "gpipe", "--ranks", "4", "--microbatches", "64", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink")
	if strings.Count(text, "over the GPU's memory") != 4 {
		t.Errorf("simulate does not mark the 4 ranks over memory:\n%s", text)
	}
	var cmp request.CompareReport
	runJSON(t, append([]string{"compare", "--ranks", "4", "--microbatches", "64", "--kind", "gpipe,1f1b"}, gpu...), &cmp)
	over := map[string]bool{}
	for _, f := range cmp.Families {
		over[f.Kind] = f.OverMemory
	}
	if !over["gpipe"] {
		t.Errorf("compare: gpipe at M = 64 not marked over memory: %v", over)
	}
}

// simulate --iterations K says that the makespan and the rank table are
// the first iteration's, and that makespan is the first of the K.
func TestIterationsSayWhichIteration(t *testing.T) {
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--iterations", "3", "--jitter", "0.1"}
	var rep request.SimulateReport
	runJSON(t, append(args, "--format", "json"), &rep)
	if rep.Iterations == nil || len(rep.Iterations.Makespans) != 3 || rep.Iterations.Makespans[0] != rep.Makespan {
		t.Fatalf("iterations %+v, makespan %g: want 3 makespans, the first the reported one", rep.Iterations, rep.Makespan)
	}
	_, text, _ := runCLI(args...)
	if !strings.Contains(text, "(iteration 1 of 3; the rank table describes it too)") {
		t.Errorf("simulate --iterations 3 does not say which iteration it reports:\n%s", text)
	}
}
