//go:build !purego

package charlm

import "github.com/pipelab/pipelab/internal/vec"

// scoreRows4, weighRows4 and backRows4 are the AVX kernels of the heads
// of 4 channels (attention_amd64.s, attention_backward_amd64.s): a head's
// packed scores, its probabilities and weighted sums, and its backward, each value formed as the scalar loops
// of attention.go form it.
//
//go:noescape
func scoreRows4(packed, q, k *float64, stride, rows int, scale float64)

//go:noescape
func weighRows4(probs, packed, values, y *float64, stride, yStride, rows int)

// scoreRows8 and weighRows8 are scoreRows4 and weighRows4 for heads of 8
// channels (the figures' LM: embed 32, 4 heads; attention8_amd64.s).
//
//go:noescape
func scoreRows8(packed, q, k *float64, stride, rows int, scale float64)

//go:noescape
func weighRows8(probs, packed, values, y *float64, stride, yStride, rows int)

//go:noescape
func backRows4(probs, q, k, v, dq, dk, dv, dy, dp *float64, stride, dyStride, rows int, scale float64)

// backRows8 is backRows4 for heads of 8 channels (the figures' LM: embed
// 32, 4 heads; attention_backward8_amd64.s).
//
//go:noescape
func backRows8(probs, q, k, v, dq, dk, dv, dy, dp *float64, stride, dyStride, rows int, scale float64)

// The kernels run where vec.Kernels.AVX is on (they use no fused
// multiply-add); without it the scalar loops do the work, with the same
// results.

// vectorHead reports whether the vector kernels take heads of a's width:
// 4 or 8 channels, where vec.Kernels.AVX is on and the attention kernels
// are not disabled.
func (a attention) vectorHead() bool {
	dh := a.headDim()
	return vec.Kernels.AVX && !vec.Kernels.Disabled.Attention && (dh == 4 || dh == 8)
}

// scoresVector sets head's packed scores (seq the sequence's projected
// tokens, h the head) with scoreRows4 or scoreRows8 and reports whether
// it did (not without AVX, nor for other head widths).
func (a attention) scoresVector(head, seq []float64, h int) bool {
	if !a.vectorHead() {
		return false
	}
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	_, _ = head[a.triangle()-1], seq[(T-1)*t3+e+h*dh+dh-1]
	rows := scoreRows4
	if dh == 8 {
		rows = scoreRows8
	}
	rows(&head[0], &seq[h*dh], &seq[e+h*dh], t3, T, a.scale())
	return true
}

// weighVector does weigh's work for head h of sequence b (bh = b·heads +
// h) with weighRows4 or weighRows8 and reports whether it did: not
// without AVX, for other head widths, or for T < 3, where a row's place
// in probs can lie within its packed values.
func (a attention) weighVector(c attentionCache, b, h int) bool {
	if !a.vectorHead() || a.seq < 3 {
		return false
	}
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	bh := b*a.heads + h
	probs := c.probs[bh*T*T : (bh+1)*T*T]
	packed := c.probs[bh*a.triangle() : (bh+1)*a.triangle()]
	values := c.qkv[b*T*t3+2*e+h*dh : (b*T+T-1)*t3+2*e+h*dh+dh]
	y := c.y[b*T*e+h*dh : (b*T+T-1)*e+h*dh+dh]
	rows := weighRows4
	if dh == 8 {
		rows = weighRows8
	}
	rows(&probs[0], &packed[0], &values[0], &y[0], t3, e, T)
	return true
}

// backwardVector does headBackward's work for head h of sequence b, a
// head of 4 channels with backRows4 or of 8 with backRows8, and reports
// whether it did (not without AVX, nor for other head widths).
func (a attention) backwardVector(s attentionScratch, c attentionCache, b, h int) bool {
	if !a.vectorHead() {
		return false
	}
	t3, e, dh, T := 3*a.embed, a.embed, a.headDim(), a.seq
	bh := b*a.heads + h
	probs := c.probs[bh*T*T : (bh+1)*T*T]
	last := (T-1)*t3 + 2*e + h*dh + dh - 1
	qkv, dqkv := c.qkv[b*T*t3:][:last+1], s.dqkv[b*T*t3:][:last+1]
	dy := s.dy[b*T*e+h*dh : (b*T+T-1)*e+h*dh+dh]
	dp := s.dp[:T]
	rows := backRows4
	if dh == 8 {
		rows = backRows8
	}
	rows(&probs[0], &qkv[h*dh], &qkv[e+h*dh], &qkv[2*e+h*dh], &dqkv[h*dh], &dqkv[e+h*dh], &dqkv[2*e+h*dh], &dy[0], &dp[0], t3, e, T, a.scale())
	return true
}
