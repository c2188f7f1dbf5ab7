package tune

import (
	"slices"
	"testing"

	"pipelab/pipeline/sim"
)

func TestRankBalanced(t *testing.T) {
	tests := []struct {
		name             string
		start, placement []int
		ranks            int
		seconds          []float64
		want             float64 // the busiest rank's load afterwards
	}{
		// V placement of 4 stages on 2 ranks (0, 1, 1, 0), six layers of
		// cost 1: the start loads rank 0 with 3 + 1 layers and rank 1 with
		// 2; an even split of the ranks, 3 each, exists.
		{"v", []int{3, 1, 1, 1}, []int{0, 1, 1, 0}, 2, []float64{1, 1, 1, 1, 1, 1}, 3},
		// Loop placement with 2 chunks on 2 ranks (stages 0 and 2 on
		// rank 0, 1 and 3 on rank 1), layer costs 4, 1, 1, 1, 1, 4: the
		// start loads rank 0 with 4 + 3 = 7. The total is 12, so 6 per rank
		// is the least bottleneck, and [1 2 2 1] reaches it (4 + 2, 2 + 4).
		{"loop", []int{1, 1, 3, 1}, []int{0, 1, 0, 1}, 2, []float64{4, 1, 1, 1, 1, 4}, 6},
	}
	for _, tt := range tests {
		got := rankBalanced(tt.start, tt.placement, tt.ranks, tt.seconds)
		if err := sim.CheckPartition(got, len(tt.seconds)); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if load := slices.Max(rankLoads(got, tt.placement, tt.ranks, tt.seconds)); load != tt.want {
			t.Errorf("%s: rankBalanced(%v) = %v, busiest rank %g, want %g", tt.name, tt.start, got, load, tt.want)
		}
	}
}
