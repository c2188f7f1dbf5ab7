package charlm

import (
	"math/rand/v2"
	"testing"
)

// tinyConfig is small enough to difference every parameter.
func tinyConfig() Config {
	return Config{Stages: 4, Embed: 8, Heads: 2, SeqLen: 6, Batch: 2, Seed: 7}
}

// perturbedPoint returns Init plus N(0, 0.3²) noise on every coordinate,
// so that biases, gains and attention patterns are far from their
// initial values and every branch of the backward pass carries signal.
func perturbedPoint(m *Model, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := m.Init()
	for i := range x {
		x[i] += 0.3 * rng.NormFloat64()
	}
	return x
}

// TestGradientMatchesFiniteDifferences compares, stage block by stage
// block, the hand-written gradient with central finite differences of
// BatchLoss over every parameter; the expected value is the numerical
// derivative itself.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	text, _ := MarkovCorpus(3, 200)
	tests := []struct {
		name string
		cfg  Config
	}{
		{"S=4 embed 8 heads 2 seq 6 batch 2", tinyConfig()},
		{"S=3 embed 6 heads 3 seq 5 batch 3", Config{Stages: 3, Embed: 6, Heads: 3, SeqLen: 5, Batch: 3, Seed: 2}},
		{"S=4 K=2 embed 4 heads 2 seq 4 batch 2", Config{Stages: 4, BlocksPerStage: 2, Embed: 4, Heads: 2, SeqLen: 4, Batch: 2, Seed: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.cfg, text)
			if err != nil {
				t.Fatal(err)
			}
			x := perturbedPoint(m, 11)
			const batch = 1
			g := make([]float64, m.Dim())
			m.Gradient(g, x, batch, nil)
			numeric := finiteDifference(func() float64 { return m.BatchLoss(x, batch) }, x, indices(0, m.Dim()))
			b := m.Blocks()
			for s := 0; s+1 < len(b); s++ {
				rel := relativeError(g[b[s]:b[s+1]], numeric[b[s]:b[s+1]])
				t.Logf("stage %d (%d parameters): relative error %.2e", s, b[s+1]-b[s], rel)
				if rel > 1e-6 {
					t.Errorf("stage %d: relative error %.3g, want < 1e-6", s, rel)
				}
			}
		})
	}
}
