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

// An expert-parallel group sits on the configuration's nodes where it has
// them (gpus_per_node and node_link), not on ExpertParallelOn's default
// nodes of 8: a group of 8 over nodes of 4 sends half of what each GPU
// hands out across the link between nodes.
func TestExpertParallelTakesTheSpecsNodes(t *testing.T) {
	spec := CostSpec{CostModel: "gpu", Preset: "deepseek-moe-16b", GPU: "h100", Link: "ib-ndr",
		Microbatch: 1, Sequence: 2048, ExpertParallel: 8, GPUsPerNode: 4, NodeLink: "nvlink"}
	cfg, err := spec.GPUConfig()
	if err != nil {
		t.Fatal(err)
	}
	ep := cfg.ExpertParallel
	if ep.GPUsPerNode != 4 || ep.IntraNode.Name != "nvlink" || ep.InterNode.Name != "ib-ndr" {
		t.Fatalf("group on nodes of %d, %s inside, %s between; want 4, nvlink, ib-ndr", ep.GPUsPerNode, ep.IntraNode.Name, ep.InterNode.Name)
	}
	// AllToAllTime's closed form for 8 GPUs, 4 a node: 3/8 of the bytes
	// inside the node, 4/8 between nodes, the slower of the two.
	const bytes = 1 << 30
	want := max(ep.IntraNode.Latency+bytes*3.0/8/ep.IntraNode.Bandwidth, ep.InterNode.Latency+bytes*4.0/8/ep.InterNode.Bandwidth)
	if got := ep.AllToAllTime(bytes); got != want {
		t.Fatalf("all-to-all of 1 GiB: %g s, want %g", got, want)
	}
}
