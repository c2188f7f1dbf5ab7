package tune

import "testing"

// BenchmarkZBAuto builds zb-auto for the paper's largest configuration
// (28.3B: P 32, m 96, limit 2P): 8 heuristic runs and ZB-H1 and ZB-H2,
// each timed by the event simulator.
func BenchmarkZBAuto(b *testing.B) {
	c := zbPaperConfigs[1]
	st := uniformTimes(c.p, c.times)
	for b.Loop() {
		if _, err := ZBAuto(ZBAutoProblem{Stages: st, Microbatches: c.m, MaxActivations: 2 * c.p, WeightGradShare: c.share}); err != nil {
			b.Fatal(err)
		}
	}
}
