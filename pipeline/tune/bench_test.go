package tune

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// benchProblem is the realistic case of docs/benchmarks-tune.md: LLaVA-1.5
// 7B on four H100s over InfiniBand NDR, 16 microbatches of one 2048-token
// sample, every default schedule.
func benchProblem(b *testing.B) Problem {
	model, err := cost.LookupNetwork("vlm-7b")
	if err != nil {
		b.Fatal(err)
	}
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	return Problem{Config: cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048},
		Ranks: 4, Microbatches: []int{16}}
}

func BenchmarkTune(b *testing.B) {
	p := benchProblem(b)
	sims := 0
	for b.Loop() {
		res, err := Tune(p)
		if err != nil {
			b.Fatal(err)
		}
		sims = res.Simulations
	}
	b.ReportMetric(float64(sims), "simulations/op")
}

// BenchmarkSimulate is one Simulate call of the same case: the baseline's
// table (interleaved 1F1B, 2 chunks, 16 microbatches) under the GPU model.
func BenchmarkSimulate(b *testing.B) {
	p := benchProblem(b)
	t, err := pipeline.Generate("interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 16, Chunks: 2})
	if err != nil {
		b.Fatal(err)
	}
	g, err := cost.NewGPUModel(p.Config, t.Stages())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sim.Simulate(t, g, sim.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
