package tune

import (
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// stageLayout is the layout of a table without Routes: one model part per
// stage.
func stageLayout(placement []int, ranks int) layout {
	part := make([]int, len(placement))
	for s := range part {
		part[s] = s
	}
	return layout{parts: len(placement), stagePart: part, placement: placement, ranks: ranks}
}

// chimeraLayout is the layout of Chimera's table on p ranks, checked
// against the paper's description (arXiv 2107.06925, §3.1): the down
// pipeline runs part s on rank s, the up pipeline part s on rank p-1-s.
func chimeraLayout(t *testing.T, p int) layout {
	t.Helper()
	tab, err := pipeline.Generate("chimera", pipeline.Shape{Ranks: p, Microbatches: p})
	if err != nil {
		t.Fatal(err)
	}
	l := newLayout(tab)
	wantPart, wantRank := make([]int, 2*p), make([]int, 2*p)
	for s := range p {
		wantPart[s], wantPart[p+s] = s, s
		wantRank[s], wantRank[p+s] = s, p-1-s
	}
	if l.parts != p || l.ranks != p || !slices.Equal(l.stagePart, wantPart) || !slices.Equal(l.placement, wantRank) {
		t.Fatalf("chimera P=%d layout %+v, want %d parts, stage parts %v on ranks %v", p, l, p, wantPart, wantRank)
	}
	return l
}

func TestRankBalanced(t *testing.T) {
	tests := []struct {
		name    string
		start   []int
		layout  layout
		seconds []float64
		want    float64 // the busiest rank's load afterwards
	}{
		// V placement of 4 stages on 2 ranks (0, 1, 1, 0), six layers of
		// cost 1: the start loads rank 0 with 3 + 1 layers and rank 1 with
		// 2; an even split of the ranks, 3 each, exists.
		{"v", []int{3, 1, 1, 1}, stageLayout([]int{0, 1, 1, 0}, 2), []float64{1, 1, 1, 1, 1, 1}, 3},
		// Loop placement with 2 chunks on 2 ranks (stages 0 and 2 on
		// rank 0, 1 and 3 on rank 1), layer costs 4, 1, 1, 1, 1, 4: the
		// start loads rank 0 with 4 + 3 = 7. The total is 12, so 6 per rank
		// is the least bottleneck, and [1 2 2 1] reaches it (4 + 2, 2 + 4).
		{"loop", []int{1, 1, 3, 1}, stageLayout([]int{0, 1, 0, 1}, 2), []float64{4, 1, 1, 1, 1, 4}, 6},
	}
	// Chimera on 4 ranks: rank r runs parts r and 3-r, so ranks 0 and 3
	// carry parts 0 + 3 and ranks 1 and 2 parts 1 + 2. Six layers of cost
	// 1 cut 3 1 1 1 load ranks 0 and 3 with 4 and the others with 2; the
	// total over one replica of each part is 6, so 3 per rank is the least
	// bottleneck, and 2 1 2 1 reaches it.
	tests = append(tests, struct {
		name    string
		start   []int
		layout  layout
		seconds []float64
		want    float64
	}{"chimera", []int{3, 1, 1, 1}, chimeraLayout(t, 4), []float64{1, 1, 1, 1, 1, 1}, 3})
	for _, tt := range tests {
		got := rankBalanced(tt.start, tt.layout, tt.seconds)
		if err := cost.CheckPartition(got, len(tt.seconds)); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if load := slices.Max(rankLoads(got, tt.layout, tt.seconds)); load != tt.want {
			t.Errorf("%s: rankBalanced(%v) = %v, busiest rank %g, want %g", tt.name, tt.start, got, load, tt.want)
		}
	}
	// rankLoads on Chimera counts each replica on its rank: 3 1 1 1 with
	// unit layers gives ranks 0..3 the loads 3+1, 1+1, 1+1, 1+3.
	if got := rankLoads([]int{3, 1, 1, 1}, chimeraLayout(t, 4), []float64{1, 1, 1, 1, 1, 1}); !slices.Equal(got, []float64{4, 2, 2, 4}) {
		t.Errorf("rankLoads on chimera = %v, want [4 2 2 4]", got)
	}
}
