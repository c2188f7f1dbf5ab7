package optim

import (
	"testing"
	"time"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
)

// One Muon step against one AdamW step on a middle stage of the default
// character LM (one GPT block, E = 64: 49,984 parameters, its four
// matrices 64×192, 64×64, 64×256 and 256×64 orthogonalised), the two
// steps interleaved in every iteration so that both see the same load:
// muon-ns/op and adamw-ns/op are their times, muon/adamw their ratio.
func BenchmarkMuonStepLM(b *testing.B) {
	lm, err := charlm.New(charlm.DefaultConfig(), charlm.TinyShakespeare())
	if err != nil {
		b.Fatal(err)
	}
	const s = 1
	steppers := map[Algorithm]*stepper{}
	for _, alg := range []Algorithm{AdamW, Muon} {
		r := &run{obj: lm, set: Settings{StepSize: 1e-3, Optimizer: Optimizer{Algorithm: alg, WeightDecay: 0.01}}, blocks: lm.Blocks()}
		r.stages = len(r.blocks) - 1
		steppers[alg] = newStepper(r, 1, 1<<30)
	}
	x := lm.Init()
	xs := x[lm.Blocks()[s]:lm.Blocks()[s+1]]
	g := make([]float64, len(xs))
	rng := objectives.NewRand(1, 2)
	for j := range g {
		g[j] = 1e-3 * rng.NormFloat64()
	}
	var adamw, muon time.Duration
	for b.Loop() {
		t0 := time.Now()
		steppers[AdamW].step(xs, g, 0, s, 1, 1)
		t1 := time.Now()
		steppers[Muon].step(xs, g, 0, s, 1, 1)
		muon += time.Since(t1)
		adamw += t1.Sub(t0)
	}
	b.ReportMetric(float64(adamw.Nanoseconds())/float64(b.N), "adamw-ns/op")
	b.ReportMetric(float64(muon.Nanoseconds())/float64(b.N), "muon-ns/op")
	b.ReportMetric(float64(muon)/float64(adamw), "muon/adamw")
}
