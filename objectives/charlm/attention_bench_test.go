package charlm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkAttention times the attention layer alone at the remedies
// figure's shape (E 16, 4 heads of 4, T 16, batch 4): its forward and its
// backward (each with the two projections), the layer's and the
// reference's (attention_reference_test.go, the per-row heads it
// replaced), so that one run gives their ratio; and the heads alone
// (everything but the two projections).
func BenchmarkAttention(b *testing.B) {
	a := attention{batch: 4, seq: 16, embed: 16, heads: 4}
	n, e := a.tokens(), a.embed
	rng := rand.New(rand.NewPCG(1, 2))
	in, dout := randomVector(rng, n*e, 1), randomVector(rng, n*e, 1)
	p := attentionParams{
		wqkv: randomVector(rng, 3*e*e, 0.5), bqkv: randomVector(rng, 3*e, 0.3),
		wo: randomVector(rng, e*e, 0.5), bo: randomVector(rng, e, 0.3),
	}
	g := attentionParams{wqkv: make([]float64, 3*e*e), bqkv: make([]float64, 3*e), wo: make([]float64, e*e), bo: make([]float64, e)}
	out, din, c, s, lin := make([]float64, n*e), make([]float64, n*e), a.newCache(), a.newScratch(), &linearScratch{}
	a.forward(out, c, in, p, lin)
	a.backward(din, g, dout, c, in, p, s, lin)
	for _, l := range []struct {
		name string
		f    func()
	}{
		{"forward", func() { a.forward(out, c, in, p, lin) }},
		{"forward/reference", func() { a.referenceForward(out, c, in, p, lin) }},
		{"heads/forward", func() { a.headsForward(c) }},
		{"heads/forward/reference", func() { a.referenceHeadsForward(c) }},
		{"heads/backward", func() { a.headsBackward(s, c, nil) }},
		{"heads/backward/reference", func() { a.referenceHeadsBackward(s, c) }},
		{"backward", func() { a.backward(din, g, dout, c, in, p, s, lin) }},
		{"backward/reference", func() { a.referenceBackward(din, g, dout, c, in, p, s, lin) }},
	} {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				l.f()
			}
			cpu.report(b)
		})
	}
}
