package validation

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// 1F1B on P = 2 ranks and M = 3 microbatches with F = B = 1 and free
// transfers: rank 0 computes from 0 to 2(M + P − 1) = 8, rank 1 from its
// first forward at 1 to its last backward at 7, a span of 6. Under
// post-validation an iteration is the largest span plus that rank's own
// step tail: max(8 + 0.5, 6 + 2) = 8.5, and max(8 + 0.5, 6 + 3) = 9 once
// rank 1's tail is the longer by more than the spans differ.
func TestPostValidatedIteration(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 3})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(tab, cost.Explicit{TF: 1, TB: 1}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tails []float64
		want  float64
	}{
		{[]float64{0.5, 2}, 8.5},
		{[]float64{0.5, 3}, 9},
	} {
		if got := postValidatedIteration(tl, tc.tails); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("tails %v: iteration %g, want %g", tc.tails, got, tc.want)
		}
	}
}
