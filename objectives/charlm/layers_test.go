package charlm

import (
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"math/rand/v2"
	"testing"
)

// Each layer is checked in isolation against central finite differences
// of the scalar probe L = Σ r⊙out, with r a fixed random tensor, so that
// every output coordinate's gradient (dout = r) is exercised. The
// expected values are the numerical derivatives.

func randomVector(rng *rand.Rand, n int, std float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = std * rng.NormFloat64()
	}
	return v
}

func probe(r, out []float64) float64 { return vec.Dot(r, out) }

// checkGradient compares analytic with the finite differences of f over
// all of x and fails if the relative error exceeds 1e-7.
func checkGradient(t *testing.T, name string, f func() float64, x, analytic []float64) {
	t.Helper()
	numeric := finiteDifference(f, x, indices(0, len(x)))
	if rel := relativeError(analytic, numeric); rel > 1e-7 {
		t.Errorf("%s: relative error %.3g, want < 1e-7", name, rel)
	} else {
		t.Logf("%s: relative error %.2e", name, rel)
	}
}

func TestLayerNormGradient(t *testing.T) {
	const n, d = 5, 7
	rng := rand.New(rand.NewPCG(1, 2))
	in, gain, bias := randomVector(rng, n*d, 2), randomVector(rng, d, 1), randomVector(rng, d, 1)
	r := randomVector(rng, n*d, 1)
	out, xhat, rstd := make([]float64, n*d), make([]float64, n*d), make([]float64, n)
	f := func() float64 {
		layerNormForward(out, xhat, rstd, in, gain, bias, n, d)
		return probe(r, out)
	}
	f()
	din, dgain, dbias := make([]float64, n*d), make([]float64, d), make([]float64, d)
	layerNormBackward(din, dgain, dbias, r, xhat, rstd, gain, n, d)
	checkGradient(t, "input", f, in, din)
	checkGradient(t, "gain", f, gain, dgain)
	checkGradient(t, "bias", f, bias, dbias)
}

func TestAttentionGradient(t *testing.T) {
	a := attention{batch: 2, seq: 5, embed: 6, heads: 3}
	n, e := a.tokens(), a.embed
	rng := rand.New(rand.NewPCG(3, 4))
	in := randomVector(rng, n*e, 1)
	p := attentionParams{
		wqkv: randomVector(rng, 3*e*e, 0.7), bqkv: randomVector(rng, 3*e, 0.3),
		wo: randomVector(rng, e*e, 0.5), bo: randomVector(rng, e, 0.3),
	}
	r := randomVector(rng, n*e, 1)
	out, c := make([]float64, n*e), a.newCache()
	f := func() float64 {
		a.forward(out, c, in, p, &linearScratch{})
		return probe(r, out)
	}
	f()
	g := attentionParams{
		wqkv: make([]float64, 3*e*e), bqkv: make([]float64, 3*e),
		wo: make([]float64, e*e), bo: make([]float64, e),
	}
	din := make([]float64, n*e)
	a.backward(din, g, r, c, in, p, a.newScratch(), &linearScratch{})
	checkGradient(t, "input", f, in, din)
	checkGradient(t, "wqkv", f, p.wqkv, g.wqkv)
	checkGradient(t, "bqkv", f, p.bqkv, g.bqkv)
	checkGradient(t, "wo", f, p.wo, g.wo)
	checkGradient(t, "bo", f, p.bo, g.bo)
}

// TestAttentionIsCausal changes the last position of a sequence and
// checks that no earlier position's output moves: by construction of the
// mask, position t reads positions u ≤ t only.
func TestAttentionIsCausal(t *testing.T) {
	a := attention{batch: 1, seq: 4, embed: 4, heads: 2}
	n, e := a.tokens(), a.embed
	rng := rand.New(rand.NewPCG(5, 6))
	in := randomVector(rng, n*e, 1)
	p := attentionParams{wqkv: randomVector(rng, 3*e*e, 1), bqkv: make([]float64, 3*e), wo: randomVector(rng, e*e, 1), bo: make([]float64, e)}
	before, after := make([]float64, n*e), make([]float64, n*e)
	a.forward(before, a.newCache(), in, p, &linearScratch{})
	for j := (n - 1) * e; j < n*e; j++ {
		in[j] += 1
	}
	a.forward(after, a.newCache(), in, p, &linearScratch{})
	for j := 0; j < (n-1)*e; j++ {
		if before[j] != after[j] {
			t.Fatalf("output %d changed from %g to %g when only the last position's input changed", j, before[j], after[j])
		}
	}
}

func TestMLPGradient(t *testing.T) {
	m := mlp{tokens: 4, embed: 3, hidden: 12}
	rng := rand.New(rand.NewPCG(7, 8))
	in := randomVector(rng, m.tokens*m.embed, 1)
	p := mlpParams{
		w1: randomVector(rng, m.embed*m.hidden, 0.8), b1: randomVector(rng, m.hidden, 0.5),
		w2: randomVector(rng, m.hidden*m.embed, 0.8), b2: randomVector(rng, m.embed, 0.5),
	}
	r := randomVector(rng, m.tokens*m.embed, 1)
	out, c := make([]float64, m.tokens*m.embed), m.newCache()
	f := func() float64 {
		m.forward(out, c, in, p, &linearScratch{})
		return probe(r, out)
	}
	f()
	g := mlpParams{
		w1: make([]float64, m.embed*m.hidden), b1: make([]float64, m.hidden),
		w2: make([]float64, m.hidden*m.embed), b2: make([]float64, m.embed),
	}
	din := make([]float64, m.tokens*m.embed)
	m.backward(din, g, r, c, in, p, m.newScratch(), &linearScratch{})
	checkGradient(t, "input", f, in, din)
	checkGradient(t, "w1", f, p.w1, g.w1)
	checkGradient(t, "b1", f, p.b1, g.b1)
	checkGradient(t, "w2", f, p.w2, g.w2)
	checkGradient(t, "b2", f, p.b2, g.b2)
}

// gelu returns x·Φ(x) and Φ(x) as activate computes them.
func gelu(x float64) (act, cdf float64) {
	a, c := []float64{0}, []float64{0}
	activate(a, c, []float64{x})
	return a[0], c[0]
}

// TestGELU checks activate against values of x·Φ(x) from the standard normal
// table (Φ(1) = 0.8413447460685429, Φ(-2) = 0.022750131948179195), and
// its derivative against finite differences.
func TestGELU(t *testing.T) {
	tests := []struct{ x, want float64 }{
		{0, 0},
		{1, 0.8413447460685429},
		{-2, -2 * 0.022750131948179195},
	}
	for _, tt := range tests {
		if got, cdf := gelu(tt.x); math.Abs(got-tt.want) > 1e-15 || got != tt.x*cdf {
			t.Errorf("gelu(%g) = %.17g, want %.17g", tt.x, got, tt.want)
		}
	}
	for _, x := range []float64{-3, -0.7, 0, 0.4, 2.5} {
		xs := []float64{x}
		numeric := finiteDifference(func() float64 { y, _ := gelu(xs[0]); return y }, xs, []int{0})[0]
		_, cdf := gelu(x)
		got := []float64{1}
		deactivate(got, []float64{x}, []float64{cdf})
		if math.Abs(got[0]-numeric) > 1e-9 {
			t.Errorf("GELU'(%g) = %.12g, finite difference %.12g", x, got[0], numeric)
		}
	}
}

func TestSoftmaxCrossEntropyGradient(t *testing.T) {
	const n, vocab = 4, 5
	rng := rand.New(rand.NewPCG(9, 10))
	logits := randomVector(rng, n*vocab, 3)
	targets := []int32{0, 4, 2, 2}
	f := func() float64 { return softmaxCrossEntropy(nil, logits, targets, n, vocab) }
	dlogits := make([]float64, n*vocab)
	softmaxCrossEntropy(dlogits, logits, targets, n, vocab)
	checkGradient(t, "logits", f, logits, dlogits)
}

// TestSoftmaxCrossEntropyUniform: equal logits give every class
// probability 1/vocab, so the loss is math.Log(vocab) whatever the targets.
func TestSoftmaxCrossEntropyUniform(t *testing.T) {
	const n, vocab = 3, 7
	logits := make([]float64, n*vocab)
	for i := range logits {
		logits[i] = 2.5
	}
	got := softmaxCrossEntropy(nil, logits, []int32{0, 3, 6}, n, vocab)
	if want := math.Log(vocab); math.Abs(got-want) > 1e-15 {
		t.Errorf("loss = %.17g, want log(%d) = %.17g", got, vocab, want)
	}
}

// TestAttentionAveragesWhenScoresAreEqual: with zero query and key
// weights every score is 0, so causal softmax weights are 1/(t+1) and,
// with identity value and output maps, out_t = mean of in_u over u ≤ t.
func TestAttentionAveragesWhenScoresAreEqual(t *testing.T) {
	a := attention{batch: 2, seq: 5, embed: 4, heads: 2}
	n, e := a.tokens(), a.embed
	rng := rand.New(rand.NewPCG(14, 15))
	in := randomVector(rng, n*e, 1)
	p := attentionParams{wqkv: make([]float64, 3*e*e), bqkv: make([]float64, 3*e), wo: make([]float64, e*e), bo: make([]float64, e)}
	for j := range e {
		p.wqkv[j*3*e+2*e+j] = 1 // value = input
		p.wo[j*e+j] = 1
	}
	out := make([]float64, n*e)
	a.forward(out, a.newCache(), in, p, &linearScratch{})
	for b := range a.batch {
		for pos := range a.seq {
			for j := range e {
				var want float64
				for u := 0; u <= pos; u++ {
					want += in[(b*a.seq+u)*e+j]
				}
				want /= float64(pos + 1)
				if got := out[(b*a.seq+pos)*e+j]; math.Abs(got-want) > 1e-14 {
					t.Errorf("sequence %d position %d channel %d: %g, want %g", b, pos, j, got, want)
				}
			}
		}
	}
}
