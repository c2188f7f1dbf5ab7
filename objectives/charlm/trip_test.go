package charlm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/objectives"
)

// perturbed returns Init plus N(0, σ²) noise, so that every weight
// matters in the gradient.
func perturbed(m *Model, seed uint64, sigma float64) []float64 {
	x := m.Init()
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range x {
		x[i] += sigma * rng.NormFloat64()
	}
	return x
}

var tripConfigs = []Config{
	{Stages: 4, BlocksPerStage: 1, Embed: 8, Heads: 2, SeqLen: 6, Batch: 2, Seed: 1},
	{Stages: 5, BlocksPerStage: 2, Embed: 6, Heads: 3, SeqLen: 5, Batch: 3, Seed: 2},
	{Stages: 3, BlocksPerStage: 1, Embed: 4, Heads: 1, SeqLen: 4, Batch: 2, Seed: 3},
}

// A Pass run with the same blocks forward and backward is Gradient, bit
// for bit: the same stage functions in the same order.
func TestPassEqualsGradient(t *testing.T) {
	text, _ := MarkovCorpus(3, 400)
	for _, cfg := range tripConfigs {
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		x := perturbed(m, 1, 0.3)
		want, got := make([]float64, m.Dim()), make([]float64, m.Dim())
		p := m.NewPass()
		for b := range 3 {
			m.Gradient(want, x, b, nil)
			for s := range cfg.Stages {
				p.Forward(m.stage(x, s), b, s)
			}
			for s := cfg.Stages - 1; s >= 0; s-- {
				p.Backward(m.stage(got, s), m.stage(x, s), s)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%+v batch %d: the pass's gradient differs from Gradient's", cfg, b)
			}
		}
	}
}

// A backward that reads other weights than its forward: the weights
// enter through the backward's products alone, the activations stay the
// forward's. Checked against that rule computed directly on the head
// (its LayerNorm bias gradient Σ_i Σ_j dlogits[i,j]·out[c,j], dlogits
// from the forward's logits and out the backward's weights), on the
// embedding (whose gradient reads no weights), and on the blocks below the
// changed one.
func TestPassBackwardReadsItsOwnWeights(t *testing.T) {
	text, _ := MarkovCorpus(3, 400)
	cfg := tripConfigs[0]
	m, err := New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	x := perturbed(m, 1, 0.3)
	y := perturbed(m, 2, 0.3) // the weights the backwards read
	last := cfg.Stages - 1
	// run returns the gradient and the logits of the forward.
	run := func(read func(s int) []float64) ([]float64, []float64) {
		p := m.NewPass().(*trip)
		for s := range cfg.Stages {
			p.Forward(m.stage(x, s), 1, s)
		}
		logits := slices.Clone(p.act.head.logits)
		g := make([]float64, m.Dim())
		for s := last; s >= 0; s-- {
			p.Backward(m.stage(g, s), read(s), s)
		}
		return g, logits
	}
	stash := func(s int) []float64 { return m.stage(x, s) }
	gx, _ := run(stash)
	gHead, logits := run(func(s int) []float64 {
		if s == last {
			return m.stage(y, s)
		}
		return m.stage(x, s)
	})

	n, e, v := cfg.Batch*cfg.SeqLen, cfg.Embed, len(m.vocab)
	_, targets := m.batch(1)
	dlogits := make([]float64, n*v)
	softmaxCrossEntropy(dlogits, logits, targets, n, v)
	out := m.headParams(y).out
	bias := m.headParams(gHead).bias
	for c := range e {
		var want float64
		for i := range n {
			for j := range v {
				want += dlogits[i*v+j] * out[c*v+j]
			}
		}
		if math.Abs(bias[c]-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("head LayerNorm bias gradient [%d] = %.15g, want %.15g", c, bias[c], want)
		}
	}
	// The head's output matrix gradient, normedᵀ·dlogits, reads no
	// weights: equal to the stashed one's.
	if !slices.Equal(m.headParams(gHead).out, m.headParams(gx).out) {
		t.Error("the head's output-matrix gradient depends on the weights the backward reads")
	}
	// The stages below see the head's weights through the gradient it
	// passes down: they change.
	if slices.Equal(m.stage(gHead, 1), m.stage(gx, 1)) {
		t.Error("stage 1's gradient ignores the head's backward weights")
	}
	// The embedding's gradient reads no weights of its own.
	gEmbed, _ := run(func(s int) []float64 {
		if s == 0 {
			return m.stage(y, s)
		}
		return m.stage(x, s)
	})
	if !slices.Equal(gEmbed, gx) {
		t.Error("the embedding's backward depends on the weights it reads")
	}
}

// Forward and backward both at the point z' (block s of x replaced) give
// Gradient at z': the rule of a pass is that of its blocks.
func TestPassAtAnAssembledPoint(t *testing.T) {
	text, _ := MarkovCorpus(3, 400)
	cfg := tripConfigs[1]
	m, err := New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	x, y := perturbed(m, 1, 0.3), perturbed(m, 2, 0.3)
	for changed := range cfg.Stages {
		z := slices.Clone(x)
		copy(m.stage(z, changed), m.stage(y, changed))
		want, got := make([]float64, m.Dim()), make([]float64, m.Dim())
		m.Gradient(want, z, 2, nil)
		p := m.NewPass()
		for s := range cfg.Stages {
			p.Forward(m.stage(z, s), 2, s)
		}
		for s := cfg.Stages - 1; s >= 0; s-- {
			p.Backward(m.stage(got, s), m.stage(z, s), s)
		}
		if !slices.Equal(got, want) {
			t.Errorf("block %d changed: the pass differs from Gradient", changed)
		}
	}
}

// PassBytes counts the slices a pass holds once it has run every
// forward.
func TestPassBytesCountsTheActivations(t *testing.T) {
	text, _ := MarkovCorpus(1, 20000)
	for _, cfg := range []Config{DefaultConfig(), tripConfigs[1]} {
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		p := m.NewPass().(*trip)
		x := m.Init()
		for s := range cfg.Stages {
			p.Forward(m.stage(x, s), 0, s)
		}
		a := p.act
		var counted int
		add := func(v ...[]float64) {
			for _, x := range v {
				counted += len(x)
			}
		}
		add(a.stream...)
		for _, c := range a.blocks {
			add(c.ln1Xhat, c.ln1Rstd, c.ln1Out, c.attn.qkv, c.attn.probs, c.attn.y, c.attnOut, c.residual,
				c.ln2Xhat, c.ln2Rstd, c.ln2Out, c.mlp.pre, c.mlp.cdf, c.mlp.act, c.mlpOut)
		}
		add(a.head.xhat, a.head.rstd, a.head.normed, a.head.logits, a.grad)
		if got := m.PassBytes(); got != 8*counted {
			t.Errorf("%+v: PassBytes %d, allocated %d bytes", cfg, got, 8*counted)
		}
	}
}

// Trips interleaved in random orders, as a replay's microbatches in flight
// are, each give Gradient bit for bit, and the model allocates for stage
// s only as many stageMemory as trips hold it at once (from the stage's
// forward to its backward), the count the test follows from the order.
func TestInterleavedPassesShareStageMemory(t *testing.T) {
	text, _ := MarkovCorpus(3, 400)
	for ci, cfg := range tripConfigs {
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		x := perturbed(m, 4, 0.3)
		rng := rand.New(rand.NewPCG(uint64(ci), 11))
		S, trips := cfg.Stages, 4
		passes := make([]objectives.Pass, trips)
		grads := make([][]float64, trips)
		done := make([]int, trips) // ops run: forwards 0..S-1, then backwards S-1..0
		holding, most := make([]int, S), make([]int, S)
		for i := range passes {
			passes[i], grads[i] = m.NewPass(), make([]float64, m.Dim())
		}
		for left := trips * 2 * S; left > 0; left-- {
			i := rng.IntN(trips)
			for done[i] == 2*S {
				i = (i + 1) % trips
			}
			if op := done[i]; op < S {
				passes[i].Forward(m.stage(x, op), i, op)
				holding[op]++
				most[op] = max(most[op], holding[op])
			} else {
				s := 2*S - 1 - op
				passes[i].Backward(m.stage(grads[i], s), m.stage(x, s), s)
				holding[s]--
			}
			done[i]++
		}
		want := make([]float64, m.Dim())
		for i, g := range grads {
			m.Gradient(want, x, i, nil)
			if !slices.Equal(g, want) {
				t.Errorf("%+v trip %d: the interleaved pass's gradient differs from Gradient's", cfg, i)
			}
		}
		for s, free := range m.ws.stages.free {
			if len(free) != most[s] {
				t.Errorf("%+v stage %d: %d stage memories allocated, %d held at once", cfg, s, len(free), most[s])
			}
		}
	}
}

// BackwardInput passes on the gradient Backward passes on, bit for bit:
// for every stepping stage s, block s's gradient after BackwardInput on
// the stages above it equals the one after Backward on them, with the
// backwards reading other weights than the forwards (so that the weights
// enter the gradient passed down).
func TestBackwardInputPassesTheSameGradient(t *testing.T) {
	text, _ := MarkovCorpus(3, 400)
	// E 16 also takes the vector LayerNorm and attention kernels, where
	// the processor has them.
	remedies := Config{Stages: 4, Embed: 16, Heads: 4, SeqLen: 8, Batch: 2, Seed: 4}
	for _, cfg := range append(slices.Clone(tripConfigs), remedies) {
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		x, y := perturbed(m, 5, 0.3), perturbed(m, 6, 0.3)
		for step := range cfg.Stages {
			var grads [2][]float64
			for k, input := range []bool{false, true} {
				p := m.NewPass().(*trip)
				for s := range cfg.Stages {
					p.Forward(m.stage(x, s), 1, s)
				}
				scratch := make([]float64, m.Dim())
				for s := cfg.Stages - 1; s > step; s-- {
					if input {
						p.BackwardInput(m.stage(y, s), s)
					} else {
						p.Backward(m.stage(scratch, s), m.stage(y, s), s)
					}
				}
				grads[k] = make([]float64, len(m.stage(x, step)))
				p.Backward(grads[k], m.stage(y, step), step)
			}
			if !slices.Equal(grads[0], grads[1]) {
				t.Errorf("%+v stage %d: the gradient after BackwardInput differs from the one after Backward", cfg, step)
			}
		}
	}
}
