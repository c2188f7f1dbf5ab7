package validation

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// TestBlockingSends times 1F1B on 2 ranks and 2 microbatches with F = 1,
// B = 2 and transfers of c = 0.25, worked by hand. Overlapped, rank 1's
// second forward waits for its first backward, not for its input, and
// only the two transfers of the first microbatch's chain are exposed:
// 3F + 3B + 2c = 9.5. Blocking, rank 0 sends its second forward's output
// before its backwards and rank 1 sends each gradient before it computes
// again, which puts a third transfer on the chain: 3F + 3B + 3c = 9.75.
func TestBlockingSends(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		t.Fatal(err)
	}
	const f, b, c = 1.0, 2.0, 0.25
	costs := cost.Explicit{TF: f, TB: b, Comm: c}
	for _, tc := range []struct {
		name  string
		model cost.Model
		want  float64
	}{
		{"overlapped", costs, 3*f + 3*b + 2*c},
		{"blocking", megatronBlocking(costs, tab, "1f1b"), 3*f + 3*b + 3*c},
	} {
		tl, err := sim.Simulate(tab, tc.model, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := sim.Makespan(tl); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: makespan %g, want %g", tc.name, got, tc.want)
		}
	}
	if _, ok := megatronBlocking(costs, tab, "zb-h1").(blockingSends); ok {
		t.Errorf("zb-h1 got a blocking model; the Zero Bubble runtime does not block")
	}
}
