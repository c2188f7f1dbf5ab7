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
	var loss float64
	for s := range m.cfg.Stages {
		loss += m.forwardStage(&m.ws.activations, m.stage(x, s), inputs, targets, s)
	}
	return loss
}

// backward writes into g the gradient of the loss of the preceding
// forward call, on the same batch, at x.
func (m *Model) backward(g, x []float64, inputs, targets []int32) {
	for s := m.cfg.Stages - 1; s >= 0; s-- {
		m.backwardStage(m.stage(g, s), &m.ws.activations, m.stage(x, s), inputs, targets, s)
	}
}
