package experiments

import (
	"strconv"
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

// A GPU-timed schedules spec is refused in the same way, naming the family
// that cannot hold one microbatch: at 2 ranks 1F1B cuts gpt-1.3b's 24
// layers into 2 stages of 12 and ZB-V into 4 of 6. By the formula above a
// sequence keeps about 0.48 GB a layer, so a microbatch of 20 sequences
// needs about 115 GB on a 1F1B stage and 57 GB on a ZB-V one: ZB-V fits the
// h100's 80 GB, 1F1B does not, as pipelab compare marks it.
func TestSchedulesSpecRefusesAFamilyNoGPUHolds(t *testing.T) {
	spec := func(mb int) string {
		return "experiment: fit\nmeasure: schedules\nkinds: [zb-v, 1f1b]\nranks: [2]\nmicrobatches: [4]\n" +
			"cost: {cost_model: gpu, microbatch_size: " + strconv.Itoa(mb) + "}\n"
	}
	if _, err := ParseSpec("s.yaml", []byte(spec(10))); err != nil {
		t.Fatalf("a microbatch of 10 sequences fits both families: %v", err)
	}
	_, err := ParseSpec("s.yaml", []byte(spec(20)))
	want := "s.yaml:3: kinds[1]: 1f1b at 2 ranks (2 stages): one microbatch's activations on stage"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "more than the "+DefaultGPU.GPU+"'s 80 GB") {
		t.Errorf("got %v, want %s ...", err, want)
	}
}
