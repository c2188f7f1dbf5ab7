package experiments

import (
	"strings"
	"testing"
)

// expert_parallel reaches the GPU model (cost.ExpertParallelOn) and the
// runs' names, leaves the names of runs without it as they were, and a
// negative degree is refused naming the key.
func TestParseSpecExpertParallel(t *testing.T) {
	ep, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu, expert_parallel: 8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ep.Cost.label(), plain.Cost.label()+"/ep8"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	cfg, err := ep.Cost.GPUConfig()
	if err != nil || cfg.ExpertParallel.Degree != 8 || cfg.ExpertParallel.GPUsPerNode != 8 {
		t.Errorf("GPU config %+v, %v: want 8 GPUs of expert parallelism in nodes of 8", cfg.ExpertParallel, err)
	}
	if _, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: unit, expert_parallel: 8}\n")); err == nil ||
		!strings.Contains(err.Error(), "expert_parallel") {
		t.Errorf("expert_parallel under the unit cost model: %v, want a refusal naming the key", err)
	}
	neg := CostSpec{CostModel: "gpu", Preset: "llama-7b", GPU: "h100", Link: "ib-ndr", Microbatch: 1, Sequence: 2048, ExpertParallel: -1}
	if _, err := neg.GPUConfig(); err == nil || !strings.Contains(err.Error(), "expert_parallel") {
		t.Errorf("expert_parallel -1: %v, want a refusal naming the key", err)
	}
}
