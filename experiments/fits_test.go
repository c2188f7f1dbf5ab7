package experiments

import (
	"strings"
	"testing"
)

// A GPU-timed spec whose one microbatch cannot fit a stage's GPU is
// refused when read, naming the stage count and its line, as pipelab
// train refuses the same flags (cmd/pipelab's guards test): a microbatch of
// 100,000 sequences of 2048 tokens of gpt-1.3b (h = 2048, a = 16) keeps
// 34sbh + 5as²b ≈ 48 TB a layer (Korthikanti et al.), far more than any
// GPU's memory.
func TestSpecRefusesAMicrobatchNoGPUHolds(t *testing.T) {
	base := "experiment: fit\nobjectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2, 4]\ntime_budget: [1]\n" +
		"methods: [{name: pipedream, step_sizes: {values: [0.1]}}]\n"
	if _, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu, microbatch_size: 1}\n")); err != nil {
		t.Fatalf("one sequence of 2048 tokens fits: %v", err)
	}
	_, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu, microbatch_size: 100000}\n"))
	want := "s.yaml:6: stages[0]: S = 2: one microbatch's activations on stage 0 take"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "more than the "+DefaultGPU.GPU+"'s 80 GB; lower microbatch_size or seq_len") {
		t.Errorf("got %v, want %s ...", err, want)
	}
}
