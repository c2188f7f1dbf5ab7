package experiments

import "fmt"

// clusterLabel names the cluster keys a cost spec sets in its runs' and
// schedules' ids, one part a key away from its default (tp and dp above 1,
// recompute other than none, a flag set, nodes given), so that a spec
// without them keeps the ids it had before they were keys.
func (c CostSpec) clusterLabel() []string {
	var parts []string
	if c.TP > 1 {
		parts = append(parts, fmt.Sprintf("tp%d", c.TP))
	}
	if c.DP > 1 {
		parts = append(parts, fmt.Sprintf("dp%d", c.DP))
	}
	if c.GPUsPerNode > 0 {
		parts = append(parts, fmt.Sprintf("node%d-%s", c.GPUsPerNode, idSafe(c.NodeLink)))
	}
	if c.Recompute != "" && c.Recompute != "none" {
		parts = append(parts, "recompute-"+c.Recompute)
	}
	for _, f := range []struct {
		set  bool
		part string
	}{{c.SequenceParallel, "seqpar"}, {c.DistributedOptimizer, "distopt"}, {c.OverlapGradReduce, "overlapgrad"}} {
		if f.set {
			parts = append(parts, f.part)
		}
	}
	return parts
}
