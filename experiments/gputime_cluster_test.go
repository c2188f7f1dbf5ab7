package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestCostSpecNodes checks that GPUsPerNode and NodeLink put the GPUs into
// nodes (NodeLink inside, Link between them), that the two come together,
// and that a tensor degree beyond a node is refused under its key.
func TestCostSpecNodes(t *testing.T) {
	c := CostSpec{CostModel: "gpu", Preset: "gpt-1.3b", GPU: "a100", Link: "ib-hdr", Microbatch: 1, Sequence: 2048,
		GPUsPerNode: 8, NodeLink: "nvlink3", TP: 8, DP: 2}
	cfg, err := c.GPUConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Link.Name != "nvlink3" || cfg.InterNode.Name != "ib-hdr" || cfg.RanksPerNode != 8 || cfg.Parallel.Tensor != 8 {
		t.Errorf("nodes: link %s, inter-node %s, %d a node, T %d; want nvlink3, ib-hdr, 8, 8", cfg.Link.Name, cfg.InterNode.Name, cfg.RanksPerNode, cfg.Parallel.Tensor)
	}
	for _, tt := range []struct {
		change func(*CostSpec)
		key    string
	}{
		{func(c *CostSpec) { c.NodeLink = "" }, "gpus_per_node"},
		{func(c *CostSpec) { c.GPUsPerNode = 0 }, "node_link"},
		{func(c *CostSpec) { c.NodeLink = "warp" }, "node_link"},
		{func(c *CostSpec) { c.TP = 16 }, "tp"},
		{func(c *CostSpec) { c.Hardware = "h.yaml" }, "gpus_per_node"},
		{func(c *CostSpec) { c.Hardware, c.GPUsPerNode = "h.yaml", 0 }, "node_link"},
		{func(c *CostSpec) { c.TP = -1 }, "tp"},
		{func(c *CostSpec) { c.DP = -2 }, "dp"},
		{func(c *CostSpec) { c.Recompute = "some" }, "recompute"},
		{func(c *CostSpec) { c.TP, c.SequenceParallel = 1, true }, "sequence_parallel"},
		{func(c *CostSpec) { c.DP, c.DistributedOptimizer = 1, true }, "distributed_optimizer"},
		{func(c *CostSpec) { c.DP, c.OverlapGradReduce = 1, true }, "overlap_grad_reduce"},
	} {
		bad := c
		tt.change(&bad)
		_, err := bad.GPUConfig()
		var ke *CostKeyError
		if !errors.As(err, &ke) || ke.Key != tt.key || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("want an error under %s, got %v", tt.key, err)
		}
	}
}

// A spec's tp or dp given as 0 is refused at its line, as --tp 0 and
// --dp 0 are; left out they are 1.
func TestSpecRefusesZeroTPAndDP(t *testing.T) {
	for _, key := range []string{"tp", "dp"} {
		src := base + "cost:\n  cost_model: gpu\n  " + key + ": 0\n"
		line := strings.Count(base, "\n") + 3
		var se *SpecError
		_, err := ParseSpec("s.yaml", []byte(src))
		if !errors.As(err, &se) || se.Line != line || se.Key != "cost."+key {
			t.Errorf("%s: 0: %v, want a SpecError at s.yaml:%d naming cost.%s", key, err, line, key)
		}
	}
	if _, err := ParseSpec("s.yaml", []byte(base+"cost:\n  cost_model: gpu\n")); err != nil {
		t.Errorf("tp and dp left out: %v", err)
	}
}
