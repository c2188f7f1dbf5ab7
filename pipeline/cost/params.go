package cost

// kvWidth is the width of the keys (and of the values): KVHeads × head size.
func (blk Block) kvWidth() float64 {
	kv := blk.KVHeads
	if kv == 0 {
		kv = blk.Heads
	}
	return float64(kv * blk.headDim())
}

func (blk Block) mlpMatrices() float64 {
	if blk.Gated {
		return 3
	}
	return 2
}

// attentionParams: Q and O are h×(a·d) (h×h when the head size d is
// h/a), K and V are h×kv; MLA's weights are its own (attention.go).
func (blk Block) attentionParams() float64 {
	h := float64(blk.Hidden)
	if blk.MLA.on() {
		return blk.MLA.params(h, float64(blk.Heads))
	}
	q := float64(blk.Heads * blk.headDim())
	return 2*h*q + 2*h*blk.kvWidth()
}

// mlpParams is one MLP of width FFN.
func (blk Block) mlpParams() float64 {
	return blk.mlpMatrices() * float64(blk.Hidden) * float64(blk.FFN)
}

// norm is the parameters of one norm: RMSNorm's gain, h, or LayerNorm's
// gain and bias, 2h, in a Bias block.
func (blk Block) norm() float64 {
	if blk.Bias {
		return 2 * float64(blk.Hidden)
	}
	return float64(blk.Hidden)
}

// biases is the bias parameters of one transformer layer's linear layers
// with one MLP of width FFN: with Bias, Q, K, V (h + 2kv), the attention
// output (h), the MLP's up (and gate) projections (f each) and its down
// projection (h); with QKVBias, Q, K and V only. MoE layers take no Bias
// (validate refuses it).
func (blk Block) biases() float64 {
	h, f := float64(blk.Hidden), float64(blk.FFN)
	qkv := h + 2*blk.kvWidth()
	switch {
	case blk.Bias:
		return qkv + h + (blk.mlpMatrices()-1)*f + h
	case blk.QKVBias:
		return qkv
	}
	return 0
}

// params counts the parameters a layer of the block holds: weights, norms
// (h each, or 2h as LayerNorms with Bias) and the biases Bias and QKVBias
// ask for (the presets ask for none, so their GPT and ViT counts are short
// by their biases). A tied head counts its copy of the embedding matrix:
// the stage holding it holds one.
func (blk Block) params() float64 {
	h := float64(blk.Hidden)
	switch blk.Kind {
	case Embedding:
		return float64(blk.Vocab)*h + float64(blk.Positions)*h
	case Head:
		return float64(blk.Vocab)*h + blk.norm()
	case Decoder, VisionEncoder:
		return blk.attentionParams() + blk.mlpParams() + blk.biases() + 2*blk.norm()
	case MoE:
		experts := float64(blk.Experts + blk.Shared)
		return blk.attentionParams() + experts*blk.mlpParams() + blk.biases() + h*float64(blk.Experts) + 2*blk.norm()
	case VisionEmbedding:
		return float64(blk.In)*h + float64(blk.Tokens)*h
	case Projector:
		return float64(blk.In)*h + h*h
	}
	return 0
}
