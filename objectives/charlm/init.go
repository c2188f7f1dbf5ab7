package charlm

import (
	"math"
	"math/rand/v2"
)

// initStream is the PCG stream of the initial point ("charlm" in ASCII),
// so that Seed alone fixes Init.
const initStream = 0x636861726c6d

// initStd is GPT-2's standard deviation for weight matrices and
// embeddings.
const initStd = 0.02

// Init returns the initial point, the same for every call: GPT-2's
// scheme, drawn in parameter order from rand.NewPCG(Seed, initStream).
// Embeddings and weight matrices are N(0, 0.02²), except the two
// projections that write into the residual stream in each block
// (attention output and second MLP layer), which are N(0, (0.02/√(2L))²)
// for L blocks; biases are zero and LayerNorm gains one.
func (m *Model) Init() []float64 {
	rng := rand.New(rand.NewPCG(m.cfg.Seed, initStream))
	x := make([]float64, m.Dim())
	normal := func(v []float64, std float64) {
		for i := range v {
			v[i] = std * rng.NormFloat64()
		}
	}
	ones := func(v []float64) {
		for i := range v {
			v[i] = 1
		}
	}
	e := m.embeddingParams(x)
	normal(e.token, initStd)
	normal(e.position, initStd)
	layers := m.cfg.layers()
	residualStd := initStd / math.Sqrt(2*float64(layers))
	for l := range layers {
		p := m.blockParams(x, l)
		ones(p.ln1Gain)
		normal(p.attn.wqkv, initStd)
		normal(p.attn.wo, residualStd)
		ones(p.ln2Gain)
		normal(p.mlp.w1, initStd)
		normal(p.mlp.w2, residualStd)
	}
	h := m.headParams(x)
	ones(h.gain)
	normal(h.out, initStd)
	return x
}
