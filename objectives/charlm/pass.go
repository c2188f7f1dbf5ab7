package charlm

// batch returns batch b's input and target characters, each
// Batch·SeqLen long: the targets are the inputs shifted by one.
func (m *Model) batch(b int) (inputs, targets []int32) {
	b %= m.batches
	if b < 0 {
		b += m.batches
	}
	n := m.cfg.Batch * m.cfg.SeqLen
	start := b * n
	return m.ids[start : start+n], m.ids[start+1 : start+n+1]
}

// forward runs every stage on batch b at x, keeping the activations, and
// returns the batch's mean cross-entropy.
func (m *Model) forward(x []float64, b int) float64 {
	inputs, targets := m.batch(b)
	ws := m.ws
	m.embed.forward(ws.stream[0], inputs, m.embeddingParams(x))
	for l := range ws.blocks {
		m.block.forward(ws.stream[l+1], ws.blocks[l], ws.stream[l], m.blockParams(x, l), &ws.linear)
	}
	return m.head.loss(ws.head, ws.stream[len(ws.blocks)], targets, m.headParams(x), &ws.linear)
}

// backward writes into g the gradient of the loss of the preceding
// forward call on batch b at x.
func (m *Model) backward(g, x []float64, b int) {
	inputs, targets := m.batch(b)
	ws := m.ws
	clear(g)
	clear(ws.grad)
	m.head.backward(ws.grad, m.headParams(g), ws.head, targets, m.headParams(x), ws.dlogits, ws.dnormed, &ws.linear)
	for l := len(ws.blocks) - 1; l >= 0; l-- {
		m.block.backward(ws.grad, m.blockParams(g, l), ws.blocks[l], m.blockParams(x, l), ws.blockScratch, &ws.linear)
	}
	m.embed.backward(m.embeddingParams(g), ws.grad, inputs)
}
