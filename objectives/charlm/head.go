package charlm

// head is the last stage: a final LayerNorm and a linear map to one logit
// per vocabulary character, without bias.
type head struct {
	tokens, embed, vocab int
}

// headParams are the stage's weights (or their gradients): gain and bias
// of the LayerNorm (embed each) and out, embed×vocab.
type headParams struct {
	gain, bias, out []float64
}

// headCache keeps the normalised input, its reciprocal standard
// deviations, the LayerNorm output, and the logits (tokens×vocab).
type headCache struct {
	xhat, rstd, normed, logits []float64
}

func (m head) newCache() headCache {
	return headCache{
		xhat:   make([]float64, m.tokens*m.embed),
		rstd:   make([]float64, m.tokens),
		normed: make([]float64, m.tokens*m.embed),
		logits: make([]float64, m.tokens*m.vocab),
	}
}

// newScratch returns the backward pass's buffers: the logit gradient
// (tokens×vocab) and the LayerNorm output gradient (tokens×embed).
func (m head) newScratch() (dlogits, dnormed []float64) {
	return make([]float64, m.tokens*m.vocab), make([]float64, m.tokens*m.embed)
}

// loss runs the stage on in (tokens×embed) and returns the mean
// cross-entropy of the logits against targets.
func (m head) loss(c headCache, in []float64, targets []int32, p headParams, lin *linearScratch) float64 {
	layerNormForward(c.normed, c.xhat, c.rstd, in, p.gain, p.bias, m.tokens, m.embed)
	linearForward(c.logits, c.normed, p.out, nil, m.tokens, m.embed, m.vocab, lin)
	return softmaxCrossEntropy(nil, c.logits, targets, m.tokens, m.vocab)
}

// backward accumulates the stage's weight gradients into g and adds the
// gradient of the mean cross-entropy with respect to in into din. It
// reads the cache of the preceding loss call.
func (m head) backward(din []float64, g headParams, c headCache, targets []int32, p headParams, dlogits, dnormed []float64, lin *linearScratch) {
	softmaxCrossEntropy(dlogits, c.logits, targets, m.tokens, m.vocab)
	linearBackward(dnormed, g.out, nil, dlogits, c.normed, p.out, m.tokens, m.embed, m.vocab, lin)
	layerNormBackward(din, g.gain, g.bias, dnormed, c.xhat, c.rstd, p.gain, m.tokens, m.embed)
}
