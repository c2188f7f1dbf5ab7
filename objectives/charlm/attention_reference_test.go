package charlm

import (
	"math"

	"github.com/pipelab/pipelab/internal/vec"
)

// The attention heads that the packed-triangle heads of attention.go
// replaced, kept as the reference they must match bit for bit
// (TestAttentionMatchesReference): one (sequence, head) at a time, row by
// row, a vec.StridedDots over the row's keys, an expInto call per row and
// the weighted sums in place.

// referenceForward is attention.forward with the reference heads.
func (a attention) referenceForward(out []float64, c attentionCache, in []float64, p attentionParams, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearForward(c.qkv, in, p.wqkv, p.bqkv, n, e, 3*e, lin)
	a.referenceHeadsForward(c)
	linearForward(out, c.y, p.wo, p.bo, n, e, e, lin)
}

// referenceHeadsForward sets c.probs and c.y from c.qkv, head by head.
func (a attention) referenceHeadsForward(c attentionCache) {
	for b := 0; b < a.batch; b++ {
		for h := 0; h < a.heads; h++ {
			a.referenceHeadForward(c, b, h)
		}
	}
}

// referenceHeadForward computes head h of sequence b: probs[t,u] =
// softmax over u ≤ t of q_t·k_u/√dh, and y_t = Σ_u probs[t,u]·v_u.
func (a attention) referenceHeadForward(c attentionCache, b, h int) {
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

// referenceBackward is attention.backward with the reference heads.
func (a attention) referenceBackward(din []float64, g attentionParams, dout []float64, c attentionCache, in []float64, p attentionParams, s attentionScratch, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearBackward(s.dy, g.wo, g.bo, dout, c.y, p.wo, n, e, e, lin)
	a.referenceHeadsBackward(s, c)
	linearBackward(din, g.wqkv, g.bqkv, s.dqkv, in, p.wqkv, n, e, 3*e, lin)
}

// referenceHeadsBackward sets s.dqkv from s.dy and the cache, head by
// head.
func (a attention) referenceHeadsBackward(s attentionScratch, c attentionCache) {
	clear(s.dqkv)
	for b := 0; b < a.batch; b++ {
		for h := 0; h < a.heads; h++ {
			a.referenceHeadBackward(s, c, b, h)
		}
	}
}

// referenceHeadBackward adds head h of sequence b's contribution to dqkv
// from dy: dP[t,u] = dy_t·v_u, dS = P⊙(dP - Σ_u P·dP), dq_t =
// scale·Σ_u dS·k_u, dk_u += scale·dS·q_t, dv_u += P[t,u]·dy_t.
func (a attention) referenceHeadBackward(s attentionScratch, c attentionCache, b, h int) {
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
			weighted += float64(p * dp[u])
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
