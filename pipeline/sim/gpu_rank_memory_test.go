package sim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// TestGPURankMemory1F1B checks the peak memory of each rank of a simulated
// 1F1B iteration against an independent sum: the rank's parameters at 16
// bytes (ZeRO's mixed-precision Adam) plus p - r microbatches of its
// stage's activations, the most 1F1B rank r holds (docs/reference.md §2).
func TestGPURankMemory1F1B(t *testing.T) {
	gpt, _ := cost.LookupNetwork("gpt-1.3b")
	gpu, _ := cost.LookupGPU("a100")
	link, _ := cost.LookupLink("nvlink")
	const p, m = 4, 8
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: gpt, GPU: gpu, Link: link, Microbatch: 1, Sequence: 1024}, p)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: p, Microbatches: m})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := Simulate(tab, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// GPT-3 XL layers: 4h² attention, 2·h·4h MLP, two norms; 6 layers per
	// stage, the embedding (V·h) on the first, the head (V·h + h) on the last.
	// Activations per layer sb(34h + 5as) (Korthikanti et al.), the head's
	// 4sbh + 4sbv.
	const h, v, s, a = 2048.0, 50257.0, 1024.0, 16.0
	layerParams := 12*h*h + 2*h
	layerAct := s * (34*h + 5*a*s)
	params := []float64{v*h + 6*layerParams, 6 * layerParams, 6 * layerParams, 6*layerParams + v*h + h}
	acts := []float64{6 * layerAct, 6 * layerAct, 6 * layerAct, 6*layerAct + 4*s*h + 4*s*v}
	got := PeakMemory(tl, g)
	for r := range p {
		want := 16*params[r] + float64(p-r)*acts[r]
		if !near(got[r], want) {
			t.Errorf("rank %d peak %.6g bytes, want %.6g", r, got[r], want)
		}
	}
}
