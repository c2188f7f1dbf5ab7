package charlm

// block is one pre-LayerNorm GPT block, the work of one middle stage:
// r = x + Attention(LN1(x)), out = r + MLP(LN2(r)).
type block struct {
	tokens, embed int
	attn          attention
	mlp           mlp
}

func newBlock(batch, seq, embed, heads int) block {
	n := batch * seq
	return block{
		tokens: n,
		embed:  embed,
		attn:   attention{batch: batch, seq: seq, embed: embed, heads: heads},
		mlp:    mlp{tokens: n, embed: embed, hidden: 4 * embed},
	}
}

// blockParams are a block's weights (or their gradients) in the order
// they are laid out in its stage's slice of the parameter vector.
type blockParams struct {
	ln1Gain, ln1Bias []float64
	attn             attentionParams
	ln2Gain, ln2Bias []float64
	mlp              mlpParams
}

// size is the number of parameters of one block: 12·e² + 13·e.
func (m block) size() int {
	e := m.embed
	return 2*e + (3*e*e + 3*e + e*e + e) + 2*e + (4*e*e + 4*e + 4*e*e + e)
}

// params cuts a block's slice (of length size) into its weights.
func (m block) params(p []float64) blockParams {
	e := m.embed
	next := func(n int) []float64 {
		s := p[:n:n]
		p = p[n:]
		return s
	}
	var b blockParams
	b.ln1Gain, b.ln1Bias = next(e), next(e)
	b.attn = attentionParams{wqkv: next(3 * e * e), bqkv: next(3 * e), wo: next(e * e), bo: next(e)}
	b.ln2Gain, b.ln2Bias = next(e), next(e)
	b.mlp = mlpParams{w1: next(4 * e * e), b1: next(4 * e), w2: next(4 * e * e), b2: next(e)}
	return b
}

// blockCache keeps what a block's backward pass reads.
type blockCache struct {
	ln1Xhat, ln1Rstd, ln1Out []float64
	attn                     attentionCache
	attnOut, residual        []float64
	ln2Xhat, ln2Rstd, ln2Out []float64
	mlp                      mlpCache
	mlpOut                   []float64
}

func (m block) newCache() blockCache {
	n, e := m.tokens, m.embed
	vec := func(k int) []float64 { return make([]float64, k) }
	return blockCache{
		ln1Xhat: vec(n * e), ln1Rstd: vec(n), ln1Out: vec(n * e),
		attn:    m.attn.newCache(),
		attnOut: vec(n * e), residual: vec(n * e),
		ln2Xhat: vec(n * e), ln2Rstd: vec(n), ln2Out: vec(n * e),
		mlp:    m.mlp.newCache(),
		mlpOut: vec(n * e),
	}
}

// blockScratch holds the backward pass's temporaries.
type blockScratch struct {
	attn    attentionScratch
	hidden  []float64
	dnormed []float64
}

func (m block) newScratch() blockScratch {
	return blockScratch{
		attn:    m.attn.newScratch(),
		hidden:  m.mlp.newScratch(),
		dnormed: make([]float64, m.tokens*m.embed),
	}
}

// forward sets out from in (both tokens×embed).
func (m block) forward(out []float64, c blockCache, in []float64, p blockParams, lin *linearScratch) {
	n, e := m.tokens, m.embed
	layerNormForward(c.ln1Out, c.ln1Xhat, c.ln1Rstd, in, p.ln1Gain, p.ln1Bias, n, e)
	m.attn.forward(c.attnOut, c.attn, c.ln1Out, p.attn, lin)
	sum(c.residual[:n*e], in, c.attnOut)
	layerNormForward(c.ln2Out, c.ln2Xhat, c.ln2Rstd, c.residual, p.ln2Gain, p.ln2Bias, n, e)
	m.mlp.forward(c.mlpOut, c.mlp, c.ln2Out, p.mlp, lin)
	sum(out[:n*e], c.residual, c.mlpOut)
}

// backward turns d, the gradient of the block's output, into the gradient
// of its input in place, and accumulates the weight gradients into g. The
// residual connections pass d through unchanged; each branch adds its
// LayerNorm's input gradient to it.
func (m block) backward(d []float64, g blockParams, c blockCache, p blockParams, s blockScratch, lin *linearScratch) {
	n, e := m.tokens, m.embed
	m.mlp.backward(s.dnormed, g.mlp, d, c.mlp, c.ln2Out, p.mlp, s.hidden, lin)
	layerNormBackward(d, g.ln2Gain, g.ln2Bias, s.dnormed, c.ln2Xhat, c.ln2Rstd, p.ln2Gain, n, e)
	m.attn.backward(s.dnormed, g.attn, d, c.attn, c.ln1Out, p.attn, s.attn, lin)
	layerNormBackward(d, g.ln1Gain, g.ln1Bias, s.dnormed, c.ln1Xhat, c.ln1Rstd, p.ln1Gain, n, e)
}
