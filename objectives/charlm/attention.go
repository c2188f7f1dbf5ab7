package charlm

import (
	"math"
	"sync"

	"github.com/pipelab/pipelab/internal/vec"
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

// forward sets out = Attention(in)·wo + bo for in of tokens×embed. The
// heads run in three passes over the whole layer: every row's scores,
// scaled and less their maximum, packed at the start of c.probs (row t
// of a head holds t+1 values, a head T(T+1)/2, the heads one after
// another); one expInto over all of them; and, from the last row of the
// last head back to the first, each row moved to its place in probs,
// normalised and weighted into y. Every value is formed as the per-row
// code formed it before (attention_reference_test.go), bit for bit.
func (a attention) forward(out []float64, c attentionCache, in []float64, p attentionParams, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearForward(c.qkv, in, p.wqkv, p.bqkv, n, e, 3*e, lin)
	a.headsForward(c)
	linearForward(out, c.y, p.wo, p.bo, n, e, e, lin)
}

// headsForward sets c.probs and c.y from c.qkv.
func (a attention) headsForward(c attentionCache) {
	packed := c.probs[:a.batch*a.heads*a.triangle()]
	a.scores(packed, c.qkv)
	expInto(packed, packed)
	a.weigh(c)
}

// triangle is the number of scores of one head: Σ_t (t+1) = T(T+1)/2.
func (a attention) triangle() int { return a.seq * (a.seq + 1) / 2 }

// scores sets packed's rows: for head h of sequence b and position t,
// s_u = q_t·k_u·scale for u ≤ t, each dot product formed as vec.Dot
// forms it, less the row's largest s_u (found as a comparison finds it:
// the sign of a zero maximum, which exp(s - max) does not see, and NaN
// scores, which reach every probability either way, aside).
func (a attention) scores(packed, qkv []float64) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	scale := a.scale()
	tri := a.triangle()
	for b := range a.batch {
		seq := qkv[b*T*t3 : (b+1)*T*t3]
		for h := range a.heads {
			head := packed[(b*a.heads+h)*tri : (b*a.heads+h+1)*tri]
			if a.scoresVector(head, seq, h) {
				continue
			}
			keys := seq[e+h*dh:]
			for t := range T {
				row := head[t*(t+1)/2 : t*(t+1)/2+t+1]
				vec.StridedDots(row, seq[t*t3+h*dh:t*t3+h*dh+dh], keys, t3)
				maxScore := math.Inf(-1)
				for u, v := range row {
					v *= scale
					row[u] = v
					if v > maxScore {
						maxScore = v
					}
				}
				for u, v := range row {
					row[u] = v - maxScore
				}
			}
		}
	}
}

// weigh takes the exponentials packed at the start of c.probs row by row,
// from the last row of the last head back to the first (a row's place in
// probs is never before its packed place, so no row is overwritten before
// it is read), moves each to its place (zero above the diagonal), divides
// it by its sum (taken in order of u) and sets y_t = Σ_u probs[t,u]·v_u,
// the sum in order of u from +0.
func (a attention) weigh(c attentionCache) {
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	tri := a.triangle()
	for bh := a.batch*a.heads - 1; bh >= 0; bh-- {
		b, h := bh/a.heads, bh%a.heads
		if a.weighVector(c, b, h) {
			continue
		}
		values := c.qkv[b*T*t3+2*e+h*dh : (b+1)*T*t3]
		probs := c.probs[bh*T*T : (bh+1)*T*T]
		for t := T - 1; t >= 0; t-- {
			row := probs[t*T : t*T+T]
			p := row[:t+1]
			copy(p, c.probs[bh*tri+t*(t+1)/2:bh*tri+t*(t+1)/2+t+1])
			clear(row[t+1:])
			var sum float64
			for _, v := range p {
				sum += v
			}
			y := c.y[(b*T+t)*e+h*dh : (b*T+t)*e+h*dh+dh]
			clear(y)
			for u := range p {
				p[u] /= sum
				w := p[u]
				v := values[u*t3 : u*t3+dh][:len(y)]
				for d := range y {
					y[d] += w * v[d]
				}
			}
		}
	}
}

// backward accumulates the weight gradients into g and sets din, the
// gradient with respect to in, given dout, the gradient of out.
func (a attention) backward(din []float64, g attentionParams, dout []float64, c attentionCache, in []float64, p attentionParams, s attentionScratch, lin *linearScratch) {
	n, e := a.tokens(), a.embed
	linearBackward(s.dy, g.wo, g.bo, dout, c.y, p.wo, n, e, e, lin)
	a.headsBackward(s, c, lin.rows)
	linearBackward(din, g.wqkv, g.bqkv, s.dqkv, in, p.wqkv, n, e, 3*e, lin)
}

// headsBackward sets s.dqkv from s.dy and the cache. With more than one
// worker (Config.Workers), sequence b is worked on goroutine b mod
// len(workers), with the dp scratch of its worker: a sequence's heads
// read and write only its own rows of dqkv, each sum formed in the order
// one goroutine forms it, so the bits are the same for every count.
func (a attention) headsBackward(s attentionScratch, c attentionCache, workers []linearScratch) {
	clear(s.dqkv)
	if len(workers) <= 1 || a.batch < 2 {
		a.sequencesBackward(s, c, 0, 1)
		return
	}
	n := min(len(workers), a.batch)
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		ws := s
		ws.dp = grow(&workers[w].a, len(s.dp))
		wg.Go(func() { a.sequencesBackward(ws, c, w, n) })
	}
	a.sequencesBackward(s, c, 0, n)
	wg.Wait()
}

// sequencesBackward is headsBackward's work on sequences first, first +
// step, … of the batch.
func (a attention) sequencesBackward(s attentionScratch, c attentionCache, first, step int) {
	for b := first; b < a.batch; b += step {
		for h := 0; h < a.heads; h++ {
			if !a.backwardVector(s, c, b, h) {
				a.headBackward(s, c, b, h)
			}
		}
	}
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
