package charlm

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"math/rand/v2"
	"testing"
)

// attentionShapes are the shapes the packed heads are compared with the
// reference at: the remedies figure's LM (E 16, 4 heads of 4, T 16, batch
// 4), the default configuration (E 64, 4 heads of 16, T 32, batch 16), the
// figures' LM (E 32, 4 heads of 8, T 16, batch 16), heads of 8 with T odd
// and batch 3, and odd ones: heads of 3 channels, heads of 4 with T odd and batch 3, heads
// of 5 and of 4 with T 1, T 2 (where a row's packed place and its place in
// probs are one value apart, so the vector weighing does not run) and T 3.
var attentionShapes = []attention{
	{batch: 4, seq: 16, embed: 16, heads: 4},
	{batch: 16, seq: 32, embed: 64, heads: 4},
	{batch: 16, seq: 16, embed: 32, heads: 4},
	{batch: 3, seq: 7, embed: 16, heads: 2},
	{batch: 3, seq: 5, embed: 6, heads: 2},
	{batch: 3, seq: 7, embed: 8, heads: 2},
	{batch: 2, seq: 1, embed: 10, heads: 2},
	{batch: 2, seq: 1, embed: 8, heads: 2},
	{batch: 3, seq: 2, embed: 4, heads: 1},
	{batch: 2, seq: 3, embed: 4, heads: 1},
}

// TestAttentionMatchesReference runs the forward and the backward of the
// layer and of the reference (attention_reference_test.go) on the same
// input and compares every element's bits: the output, the cache (queries,
// keys and values, probabilities, head outputs), the input gradient, the
// weight gradients and the backward's scratch, with the vector kernels
// (attention_amd64.s, exp_amd64.s) where the processor has them and
// without, each on and off. The weights are large in one
// case (spread 10) so that scores reach below −700, where expInto takes
// math.Exp for a group, and probabilities underflow to 0; and in one a
// NaN input, whose NaN scores the maximum skips and which then reaches
// every later probability of its sequence.
func TestAttentionMatchesReference(t *testing.T) {
	defer func(e, a bool) { vec.Kernels.AVX2FMA, vec.Kernels.AVX = e, a }(vec.Kernels.AVX2FMA, vec.Kernels.AVX)
	exp, attn := vec.Kernels.AVX2FMA, vec.Kernels.AVX
	for _, on := range [][2]bool{{true, true}, {false, true}, {true, false}, {false, false}} {
		vec.Kernels.AVX2FMA, vec.Kernels.AVX = on[0] && exp, on[1] && attn
		vector := fmt.Sprintf("%v/%v", vec.Kernels.AVX2FMA, vec.Kernels.AVX)
		for _, a := range attentionShapes {
			for _, spread := range []float64{0.5, 10} {
				name := fmt.Sprintf("exp/attention kernels %s B=%d T=%d E=%d H=%d spread=%g", vector, a.batch, a.seq, a.embed, a.heads, spread)
				compareAttention(t, name, a, spread, false)
			}
			compareAttention(t, fmt.Sprintf("exp/attention kernels %s B=%d T=%d E=%d H=%d NaN", vector, a.batch, a.seq, a.embed, a.heads), a, 0.5, true)
		}
	}
}

// compareAttention is one case of TestAttentionMatchesReference.
func compareAttention(t *testing.T, name string, a attention, spread float64, nan bool) {
	n, e := a.tokens(), a.embed
	rng := rand.New(rand.NewPCG(uint64(n), uint64(e)))
	in := randomVector(rng, n*e, 1)
	if nan {
		// The middle position of the first sequence: its key and value
		// reach every later row of the sequence.
		in[a.seq/2*e] = math.NaN()
	}
	p := attentionParams{
		wqkv: randomVector(rng, 3*e*e, spread), bqkv: randomVector(rng, 3*e, 0.3),
		wo: randomVector(rng, e*e, 0.5), bo: randomVector(rng, e, 0.3),
	}
	dout := randomVector(rng, n*e, 1)
	type run struct {
		out, din []float64
		c        attentionCache
		g        attentionParams
		s        attentionScratch
	}
	newRun := func() run {
		return run{
			out: make([]float64, n*e), din: make([]float64, n*e), c: a.newCache(), s: a.newScratch(),
			g: attentionParams{wqkv: make([]float64, 3*e*e), bqkv: make([]float64, 3*e), wo: make([]float64, e*e), bo: make([]float64, e)},
		}
	}
	got, want := newRun(), newRun()
	// The caches start dirty, as a workspace reused between batches does.
	for _, r := range []run{got, want} {
		for _, v := range [][]float64{r.c.probs, r.c.y, r.s.dqkv, r.s.dp} {
			for i := range v {
				v[i] = math.NaN()
			}
		}
	}
	a.forward(got.out, got.c, in, p, &linearScratch{})
	a.backward(got.din, got.g, dout, got.c, in, p, got.s, &linearScratch{})
	a.referenceForward(want.out, want.c, in, p, &linearScratch{})
	a.referenceBackward(want.din, want.g, dout, want.c, in, p, want.s, &linearScratch{})
	for _, v := range []struct {
		what      string
		got, want []float64
	}{
		{"out", got.out, want.out}, {"qkv", got.c.qkv, want.c.qkv}, {"probs", got.c.probs, want.c.probs},
		{"y", got.c.y, want.c.y}, {"din", got.din, want.din}, {"dwqkv", got.g.wqkv, want.g.wqkv},
		{"dbqkv", got.g.bqkv, want.g.bqkv}, {"dwo", got.g.wo, want.g.wo}, {"dbo", got.g.bo, want.g.bo},
		{"dqkv", got.s.dqkv, want.s.dqkv}, {"dy", got.s.dy, want.s.dy},
	} {
		if len(v.got) != len(v.want) {
			t.Fatalf("%s: %s has %d values, the reference %d", name, v.what, len(v.got), len(v.want))
		}
		for i := range v.got {
			if math.Float64bits(v.got[i]) != math.Float64bits(v.want[i]) {
				t.Fatalf("%s: %s[%d] = %.17g, the reference %.17g", name, v.what, i, v.got[i], v.want[i])
			}
		}
	}
	var zeros int
	for _, v := range got.c.probs {
		if v == 0 {
			zeros++
		}
	}
	if above := a.batch * a.heads * a.seq * (a.seq - 1) / 2; spread > 1 && a.seq > 4 && zeros <= above {
		t.Errorf("%s: %d zero probabilities, only the %d above the diagonal: no score underflowed", name, zeros, above)
	}
}
