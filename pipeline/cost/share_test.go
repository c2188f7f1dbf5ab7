package cost

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// ChunksPerRank is V, the model parts a rank holds, and StageShare its
// inverse: 1F1B one stage a rank, interleaved 1F1B the V it was asked
// for, Chimera (two pipelines over the same P ranks, each rank one part
// of each) one part a rank with its replica counted apart (its doc).
func TestChunksPerRankAndStageShare(t *testing.T) {
	for _, c := range []struct {
		family string
		sh     pipeline.Shape
		v      int
	}{
		{"1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8}, 1},
		{"interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 2}, 2},
		{"interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 3}, 3},
		{"chimera", pipeline.Shape{Ranks: 4, Microbatches: 8}, 1},
	} {
		tab, err := pipeline.Generate(c.family, c.sh)
		if err != nil {
			t.Fatalf("%s: %v", c.family, err)
		}
		if got := ChunksPerRank(tab); got != c.v {
			t.Errorf("%s V=%d: ChunksPerRank %d, want %d", c.family, c.sh.Chunks, got, c.v)
		}
		if got := StageShare(tab); got != 1/float64(c.v) {
			t.Errorf("%s V=%d: StageShare %g, want 1/%d", c.family, c.sh.Chunks, got, c.v)
		}
	}
}
