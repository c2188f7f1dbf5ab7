package charlm

// The model as a chain of stages: stage 0 the embedding, stages 1..S-2
// K GPT blocks each, stage S-1 the head. Gradient runs forwardStage for
// s = 0..S-1 and then backwardStage for s = S-1..0 on the workspace's
// activations; a Pass runs the same functions on its own, one stage at a
// time, as a pipeline replay reaches them.

// forwardStage runs stage s on batch (inputs, targets) with the stage's
// block xs, reading stage s-1's output from a and leaving its own
// output and caches there. The head's stage returns the batch's mean
// cross-entropy; the others return 0.
func (m *Model) forwardStage(a *activations, xs []float64, inputs, targets []int32, s int) float64 {
	ws := m.ws
	switch s {
	case 0:
		m.embed.forward(a.stream[0], inputs, m.embeddingParamsOf(xs))
	case m.cfg.Stages - 1:
		return m.head.loss(a.head, a.stream[len(a.blocks)], targets, m.headParamsOf(xs), &ws.linear)
	default:
		k := m.cfg.blocksPerStage()
		for j := range k {
			l := (s-1)*k + j
			m.block.forward(a.stream[l+1], a.blocks[l], a.stream[l], m.blockParamsOf(xs, j), &ws.linear)
		}
	}
	return 0
}

// backwardStage writes into gs the gradient of stage s's block, taking
// the weights from xs and everything else from a: the caches of the
// stage's forward and the gradient of its output, which the backward of
// stage s+1 left in a.grad (the head's stage starts it from the loss).
// It leaves the gradient of the stage's input in a.grad for stage s-1.
// With xs the block the forward read, this is backpropagation.
func (m *Model) backwardStage(gs []float64, a *activations, xs []float64, inputs, targets []int32, s int) {
	ws := m.ws
	clear(gs)
	switch s {
	case 0:
		if gs != nil {
			m.embed.backward(m.embeddingParamsOf(gs), a.grad, inputs)
		}
	case m.cfg.Stages - 1:
		clear(a.grad)
		m.head.backward(a.grad, m.headParamsOf(gs), a.head, targets, m.headParamsOf(xs), ws.dlogits, ws.dnormed, &ws.linear)
	default:
		k := m.cfg.blocksPerStage()
		for j := k - 1; j >= 0; j-- {
			l := (s-1)*k + j
			m.block.backward(a.grad, m.blockParamsOf(gs, j), a.blocks[l], m.blockParamsOf(xs, j), ws.blockScratch, &ws.linear)
		}
	}
}
