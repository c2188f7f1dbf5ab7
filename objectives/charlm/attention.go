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
// u ≤ t of q_t·k_u/√dh, and y_t = Σ_u probs[t,u]·v_u, the sums taken over
// u in order as one axpy per u would.
func (a attention) headForward(c attentionCache, b, h int) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	scale := a.scale()
	qkv := c.qkv[b*T*t3 : (b+1)*T*t3]
	keys, values := qkv[e+h*dh:], qkv[2*e+h*dh:]
	probs := c.probs[(b*a.heads+h)*T*T : (b*a.heads+h+1)*T*T]
	for t := range T {
		q := qkv[t*t3+h*dh : t*t3+h*dh+dh]
		row := probs[t*T : t*T+T]
		scores := row[:t+1]
		vec.StridedDots(scores, q, keys, t3)
		// The largest score, as max would find it but for the sign of a
		// zero, which exp(v - maxScore) does not see, and NaN, which
		// reaches every probability either way.
		maxScore := math.Inf(-1)
		for u, v := range scores {
			v *= scale
			scores[u] = v
			if v > maxScore {
				maxScore = v
			}
		}
		for u, v := range scores {
			scores[u] = v - maxScore
		}
		expInto(scores, scores)
		var sum float64
		for _, v := range scores {
			sum += v
		}
		clear(row[t+1:])
		y := c.y[(b*T+t)*e+h*dh : (b*T+t)*e+h*dh+dh]
		clear(y)
		for u := range scores {
			scores[u] /= sum
			w := scores[u]
			v := values[u*t3 : u*t3+dh][:len(y)]
			for d := range y {
				y[d] += w * v[d]
			}
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
// dk_u += scale·dS·q_t, dv_u += P[t,u]·dy_t, every sum over u in order.
func (a attention) headBackward(s attentionScratch, c attentionCache, b, h int) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	scale := a.scale()
	qkv := c.qkv[b*T*t3 : (b+1)*T*t3]
	dqkv := s.dqkv[b*T*t3 : (b+1)*T*t3]
	kOff, vOff := e+h*dh, 2*e+h*dh
	probs := c.probs[(b*a.heads+h)*T*T : (b*a.heads+h+1)*T*T]
	for t := range T {
		row := probs[t*T : t*T+t+1]
		dy := s.dy[(b*T+t)*e+h*dh : (b*T+t)*e+h*dh+dh]
		dp := s.dp[:t+1]
		vec.StridedDots(dp, dy, qkv[vOff:], t3)
		var weighted float64
		for u, p := range row {
			weighted += p * dp[u]
			dv := dqkv[u*t3+vOff : u*t3+vOff+dh][:len(dy)]
			for d, g := range dy {
				dv[d] += p * g
			}
		}
		q := qkv[t*t3+h*dh : t*t3+h*dh+dh]
		dq := dqkv[t*t3+h*dh : t*t3+h*dh+dh][:len(q)]
		for u, p := range row {
			ds := p * (dp[u] - weighted) * scale
			k := qkv[u*t3+kOff : u*t3+kOff+dh][:len(q)]
			dk := dqkv[u*t3+kOff : u*t3+kOff+dh][:len(q)]
			for d := range q {
				dq[d] += ds * k[d]
				dk[d] += ds * q[d]
			}
		}
	}
}
