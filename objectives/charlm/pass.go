package charlm

// batch returns training batch b mod Batches: its input and target
// characters, each Batch·SeqLen long.
func (m *Model) batch(b int) (inputs, targets []int32) {
	b %= m.batches
	if b < 0 {
		b += m.batches
	}
	return m.window(m.ids, b)
}

// window returns the j-th run of Batch·SeqLen characters of ids as inputs
// and, shifted by one, as targets.
func (m *Model) window(ids []int32, j int) (inputs, targets []int32) {
	n := m.cfg.Batch * m.cfg.SeqLen
	start := j * n
	return ids[start : start+n], ids[start+1 : start+n+1]
}

// forward runs every stage on one batch at x, keeping the activations,
// and returns the batch's mean cross-entropy.
func (m *Model) forward(x []float64, inputs, targets []int32) float64 {
	ws := m.ws
	m.embed.forward(ws.stream[0], inputs, m.embeddingParams(x))
	for l := range ws.blocks {
		m.block.forward(ws.stream[l+1], ws.blocks[l], ws.stream[l], m.blockParams(x, l), &ws.linear)
	}
	return m.head.loss(ws.head, ws.stream[len(ws.blocks)], targets, m.headParams(x), &ws.linear)
}

// backward writes into g the gradient of the loss of the preceding
// forward call, on the same batch, at x.
func (m *Model) backward(g, x []float64, inputs, targets []int32) {
	ws := m.ws
	clear(g)
	clear(ws.grad)
	m.head.backward(ws.grad, m.headParams(g), ws.head, targets, m.headParams(x), ws.dlogits, ws.dnormed, &ws.linear)
	for l := len(ws.blocks) - 1; l >= 0; l-- {
		m.block.backward(ws.grad, m.blockParams(g, l), ws.blocks[l], m.blockParams(x, l), ws.blockScratch, &ws.linear)
	}
	m.embed.backward(m.embeddingParams(g), ws.grad, inputs)
}
