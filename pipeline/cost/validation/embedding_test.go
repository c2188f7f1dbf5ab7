package validation

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// The 28.3B's tied embedding, 32000 × 6144 fp16 gradients, all-reduced
// between rank 0 (node 0) and rank 31 (node 3) over RoCE at 25 GB/s with
// 8 µs of latency: a ring of two moves the bytes once each way in 2 steps,
// 32000·6144·2 / 25e9 + 2·8e-6 s, about 15.7 ms, added to those two ranks'
// tails in Megatron-LM's 1F1B and to none in ZB-H1.
func TestMegatronStepTail(t *testing.T) {
	hw, err := cost.ParseHardware(zbCluster, "hardware/zb-a100-roce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := zbSetups[3]
	g, err := s.model(hw, clusterKnobs{efficiency: 0.8, passes: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := 32000.0*6144*2/25e9 + 2*8e-6
	for _, family := range []string{"1f1b", "zb-h1"} {
		tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: s.ranks, Microbatches: s.m})
		if err != nil {
			t.Fatal(err)
		}
		tails := g.RankStepTails(tab)
		if family == "1f1b" {
			tails[0] += want
			tails[s.ranks-1] += want
		}
		worst := 0.0
		for _, x := range tails {
			worst = max(worst, x)
		}
		if got := megatronStepTail(g, tab, family); math.Abs(got-worst) > 1e-12 {
			t.Errorf("%s: tail %g s, want %g", family, got, worst)
		}
		if family == "zb-h1" && worst != g.StepTail(tab) {
			t.Errorf("zb-h1: tail %g s, want StepTail's %g", worst, g.StepTail(tab))
		}
	}
}
