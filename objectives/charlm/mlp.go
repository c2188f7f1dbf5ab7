package charlm

import "math"

// mlp is the position-wise feed-forward layer of a GPT block: a linear
// map to hidden = 4·embed channels, the exact (erf) GELU as in PyTorch's
// nn.GELU default, and a linear map back to embed channels.
type mlp struct {
	tokens, embed, hidden int
}

// mlpParams are the layer's weights (or their gradients): w1 is
// embed×hidden, b1 hidden, w2 hidden×embed, b2 embed.
type mlpParams struct {
	w1, b1, w2, b2 []float64
}

// mlpCache keeps the pre-activation, Φ of it (the backward's GELU
// derivative reuses the forward's erf) and the activation (tokens×hidden).
type mlpCache struct {
	pre, cdf, act []float64
}

func (m mlp) newCache() mlpCache {
	return mlpCache{
		pre: make([]float64, m.tokens*m.hidden),
		cdf: make([]float64, m.tokens*m.hidden),
		act: make([]float64, m.tokens*m.hidden),
	}
}

// newScratch returns the backward pass's buffer for the hidden gradient.
func (m mlp) newScratch() []float64 { return make([]float64, m.tokens*m.hidden) }

// forward sets out = GELU(in·w1 + b1)·w2 + b2.
func (m mlp) forward(out []float64, c mlpCache, in []float64, p mlpParams, lin *linearScratch) {
	linearForward(c.pre, in, p.w1, p.b1, m.tokens, m.embed, m.hidden, lin)
	activate(c.act, c.cdf, c.pre)
	linearForward(out, c.act, p.w2, p.b2, m.tokens, m.hidden, m.embed, lin)
}

// backward accumulates the weight gradients into g and sets din from
// dout; dhidden is scratch of tokens×hidden.
func (m mlp) backward(din []float64, g mlpParams, dout []float64, c mlpCache, in []float64, p mlpParams, dhidden []float64, lin *linearScratch) {
	linearBackward(dhidden, g.w2, g.b2, dout, c.act, p.w2, m.tokens, m.hidden, m.embed, lin)
	deactivate(dhidden, c.pre, c.cdf)
	linearBackward(din, g.w1, g.b1, dhidden, in, p.w1, m.tokens, m.embed, m.hidden, lin)
}

// activate sets act = GELU(pre) = pre·Φ(pre) and cdf = Φ(pre) element by
// element, Φ the standard normal distribution function: Φ(x) = (1 +
// math.Erf(x/√2))/2, the division and math.Erf bit for bit (erfInto).
func activate(act, cdf, pre []float64) {
	erfInto(cdf, act, pre, math.Sqrt2, true)
}

// deactivate multiplies d, the gradient of GELU(pre), by the GELU's
// derivative at pre given cdf = Φ(pre), making it the gradient of pre.
// The Gaussians e^(-x²/2) are taken by expInto, a chunk of the layer at a
// time.
func deactivate(d, pre, cdf []float64) {
	d, cdf = d[:len(pre)], cdf[:len(pre)]
	var gauss [64]float64
	for start := 0; start < len(pre); start += len(gauss) {
		x := pre[start:min(start+len(gauss), len(pre))]
		g := gauss[:len(x)]
		for j, v := range x {
			g[j] = -0.5 * v * v
		}
		expInto(g, g)
		for j, v := range x {
			d[start+j] *= geluDerivative(v, cdf[start+j], g[j])
		}
	}
}

// geluDerivative is Φ(x) + x·φ(x) with φ the standard normal density,
// given cdf = Φ(x) and gauss = e^(-x²/2).
func geluDerivative(x, cdf, gauss float64) float64 {
	const invSqrt2Pi = 0.3989422804014327
	return cdf + float64(x*invSqrt2Pi*gauss)
}
