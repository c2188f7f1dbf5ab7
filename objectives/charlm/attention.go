package charlm

import (
	"math"

	"pipelab/internal/vec"
)

// attention is causal multi-head self-attention over batch sequences of
// seq positions with embed channels split evenly into heads. The input is
// projected by one matrix into queries, keys and values laid out per
// position as [q | k | v] (head h owns channels h·dh..(h+1)·dh of each),
// and the concatenated head outputs are projected back to embed channels.
type attention struct {
	batch, seq, embed, heads int
}

// attentionParams are the layer's weights (or their gradients): wqkv is
// embed×3·embed, bqkv 3·embed, wo embed×embed, bo embed.
type attentionParams struct {
	wqkv, bqkv, wo, bo []float64
}

// attentionCache keeps what the backward pass reads: the projected
// queries, keys and values (tokens×3·embed), the attention probabilities
// (batch×heads×seq×seq, zero above the diagonal) and the concatenated
// head outputs before the output projection (tokens×embed).
type attentionCache struct {
	qkv, probs, y []float64
}

// attentionScratch holds the backward pass's temporaries.
type attentionScratch struct {
	dqkv, dy, dp []float64
}

func (a attention) tokens() int    { return a.batch * a.seq }
func (a attention) headDim() int   { return a.embed / a.heads }
func (a attention) scale() float64 { return 1 / math.Sqrt(float64(a.headDim())) }

func (a attention) newCache() attentionCache {
	n := a.tokens()
	return attentionCache{
		qkv:   make([]float64, n*3*a.embed),
		probs: make([]float64, a.batch*a.heads*a.seq*a.seq),
		y:     make([]float64, n*a.embed),
	}
}

func (a attention) newScratch() attentionScratch {
	n := a.tokens()
	return attentionScratch{
		dqkv: make([]float64, n*3*a.embed),
		dy:   make([]float64, n*a.embed),
		dp:   make([]float64, a.seq),
	}
}

// forward sets out = Attention(in)·wo + bo for in of tokens×embed.
func (a attention) forward(out []float64, c attentionCache, in []float64, p attentionParams, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearForward(c.qkv, in, p.wqkv, p.bqkv, n, e, 3*e, lin)
	for b := 0; b < a.batch; b++ {
		for h := 0; h < a.heads; h++ {
			a.headForward(c, b, h)
		}
	}
	linearForward(out, c.y, p.wo, p.bo, n, e, e, lin)
}

// headForward computes head h of sequence b: probs[t,u] = softmax over
// u ≤ t of q_t·k_u/√dh, and y_t = Σ_u probs[t,u]·v_u.
func (a attention) headForward(c attentionCache, b, h int) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	scale := a.scale()
	base := b * T
	for t := 0; t < T; t++ {
		q := c.qkv[(base+t)*t3+h*dh : (base+t)*t3+h*dh+dh]
		row := c.probs[((b*a.heads+h)*T+t)*T : ((b*a.heads+h)*T+t)*T+T]
		maxScore := math.Inf(-1)
		for u := 0; u <= t; u++ {
			k := c.qkv[(base+u)*t3+e+h*dh:]
			s := vec.Dot(q, k) * scale
			row[u] = s
			maxScore = max(maxScore, s)
		}
		var sum float64
		for u := 0; u <= t; u++ {
			row[u] = math.Exp(row[u] - maxScore)
			sum += row[u]
		}
		clear(row[t+1:])
		y := c.y[(base+t)*e+h*dh : (base+t)*e+h*dh+dh]
		clear(y)
		for u := 0; u <= t; u++ {
			row[u] /= sum
			axpy(y, c.qkv[(base+u)*t3+2*e+h*dh:], row[u])
		}
	}
}

// backward accumulates the weight gradients into g and sets din, the
// gradient with respect to in, given dout, the gradient of out.
func (a attention) backward(din []float64, g attentionParams, dout []float64, c attentionCache, in []float64, p attentionParams, s attentionScratch, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearBackward(s.dy, g.wo, g.bo, dout, c.y, p.wo, n, e, e, lin)
	clear(s.dqkv)
	for b := 0; b < a.batch; b++ {
		for h := 0; h < a.heads; h++ {
			a.headBackward(s, c, b, h)
		}
	}
	linearBackward(din, g.wqkv, g.bqkv, s.dqkv, in, p.wqkv, n, e, 3*e, lin)
}

// headBackward adds head h of sequence b's contribution to dqkv from dy:
// dP[t,u] = dy_t·v_u, dS = P⊙(dP - Σ_u P·dP), dq_t = scale·Σ_u dS·k_u,
// dk_u += scale·dS·q_t, dv_u += P[t,u]·dy_t.
func (a attention) headBackward(s attentionScratch, c attentionCache, b, h int) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	scale := a.scale()
	base := b * T
	for t := 0; t < T; t++ {
		row := c.probs[((b*a.heads+h)*T+t)*T : ((b*a.heads+h)*T+t)*T+T]
		dy := s.dy[(base+t)*e+h*dh : (base+t)*e+h*dh+dh]
		var weighted float64
		for u := 0; u <= t; u++ {
			off := (base+u)*t3 + 2*e + h*dh
			s.dp[u] = vec.Dot(dy, c.qkv[off:])
			weighted += row[u] * s.dp[u]
			axpy(s.dqkv[off:off+dh], dy, row[u])
		}
		qOff := (base+t)*t3 + h*dh
		q := c.qkv[qOff : qOff+dh]
		dq := s.dqkv[qOff : qOff+dh]
		for u := 0; u <= t; u++ {
			ds := row[u] * (s.dp[u] - weighted) * scale
			kOff := (base+u)*t3 + e + h*dh
			axpy(dq, c.qkv[kOff:], ds)
			axpy(s.dqkv[kOff:kOff+dh], q, ds)
		}
	}
}
