package charlm

import (
	"testing"

	"github.com/pipelab/pipelab/internal/cputime"
	"github.com/pipelab/pipelab/internal/vec"
)

// stepFLOPs is the floating-point work of one training step (Gradient:
// the forward and backward of one batch) of cfg on a vocabulary of vocab
// characters, counting the matrix products only, a multiply-add as two
// operations. Forward, per sequence of T tokens: each block's QKV
// projection 2·T·E·3E, output projection 2·T·E², MLP 2·2·T·E·4E, and the
// causal attention's scores Q·Kᵀ and mixing P·V over the T(T+1)/2 pairs a
// position may attend to, 2·2·T(T+1)/2·E over all heads; the head
// 2·T·E·V. The backward forms two products for each of these (the input's
// and the weights' gradients; dP and dV, dQ and dK for attention), so a
// step is 3 times the forward. LayerNorm, GELU, softmax, the bias and
// residual additions and the embedding's lookups (O(T·E) each) are left
// out: they are work, but not the kind a peak FMA rate bounds.
func stepFLOPs(cfg Config, vocab int) float64 {
	e, t, l := float64(cfg.Embed), float64(cfg.SeqLen), float64(cfg.layers())
	block := 2*t*e*3*e + 2*t*e*e + 2*2*t*e*4*e + 2*t*(t+1)*e
	forward := l*block + 2*t*e*float64(vocab)
	return 3 * forward * float64(cfg.Batch)
}

// figures is the LM shape the figures' presets write (embed 32, seq_len
// 16, batch_size 16, blocks_per_stage 1; experiments/figures) at S
// stages.
func figures(stages int) Config {
	return Config{Stages: stages, BlocksPerStage: 1, Embed: 32, Heads: 4, SeqLen: 16, Batch: 16, Seed: 1}
}

// flopShapes are the LMs BenchmarkStepGFLOPs times: the default of
// pipelab train --objective charlm at S = 4 (embed 64, seq_len 32, batch
// 16: cmd/pipelab's lmEmbed and lmSeqLen; until issue 40 it was
// ShakespeareConfig, the figures' shape) and the figures' LM at the stage
// counts the staleness-law and optimizers-under-delay figures run, S = 4
// and 8.
func flopShapes() []struct {
	name string
	cfg  Config
} {
	return []struct {
		name string
		cfg  Config
	}{
		{"train-default", Config{Stages: 4, BlocksPerStage: 1, Embed: 64, Heads: 4, SeqLen: 32, Batch: 16, Seed: 1}},
		{"figures/S=4", figures(4)},
		{"figures/S=8", figures(8)},
	}
}

// BenchmarkStepGFLOPs times Gradient (the forward and backward of one
// training step) on the shipped text and reports its rate, stepFLOPs over
// the process CPU time, in GFLOP/s, beside this core's peak measured in
// the same iterations by vec.Peak's 512-bit FMA loop (or the 256-bit one
// without AVX-512), alternated with the steps so that the machine's load
// falls on both alike: peak-GFLOP/s, and step/peak, their ratio.
func BenchmarkStepGFLOPs(b *testing.B) {
	text := TinyShakespeare()
	loop := vec.FMA512
	if vec.Peak(loop, 1) == 0 {
		loop = vec.FMA256
	}
	for _, s := range flopShapes() {
		b.Run(s.name, func(b *testing.B) {
			m, err := New(s.cfg, text)
			if err != nil {
				b.Fatal(err)
			}
			x := m.Init()
			g := make([]float64, m.Dim())
			flops := stepFLOPs(s.cfg, len(m.vocab))
			var stepCPU, peakCPU, peakFLOPs float64
			for i := 0; b.Loop(); i++ {
				t0, _ := cputime.Process()
				m.Gradient(g, x, i, nil)
				t1, _ := cputime.Process()
				peakFLOPs += vec.Peak(loop, 1<<14)
				t2, _ := cputime.Process()
				stepCPU += float64(t1 - t0)
				peakCPU += float64(t2 - t1)
			}
			if stepCPU == 0 || b.N == 0 {
				return
			}
			step := flops * float64(b.N) / stepCPU
			b.ReportMetric(stepCPU/float64(b.N), "cpu-ns/op")
			b.ReportMetric(flops/1e6, "MFLOP/op")
			b.ReportMetric(step, "GFLOP/s")
			if peakFLOPs > 0 && peakCPU > 0 {
				peak := peakFLOPs / peakCPU
				b.ReportMetric(peak, "peak-GFLOP/s")
				b.ReportMetric(step/peak, "step/peak")
			}
		})
	}
}

// TestStepFLOPsCountsTheProducts checks stepFLOPs against a count made
// product by product for a small shape (E 8, T 4, V 10, one block, batch
// 2): forward QKV 2·4·8·24 = 1536, output projection 2·4·8·8 = 512, MLP
// 2·4·8·32·2 = 4096, attention 2·(2·10·8) = 320 (10 causal pairs of a
// 4-token sequence, dh·heads = 8), head 2·4·8·10 = 640: 7104 a sequence,
// times 2 sequences, times 3.
func TestStepFLOPsCountsTheProducts(t *testing.T) {
	cfg := Config{Stages: 3, Embed: 8, Heads: 2, SeqLen: 4, Batch: 2}
	if got, want := stepFLOPs(cfg, 10), 3*2*float64(1536+512+4096+320+640); got != want {
		t.Errorf("stepFLOPs = %v, want %v", got, want)
	}
}
