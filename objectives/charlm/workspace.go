package charlm

// workspace is the memory a forward and backward pass reuse, allocated
// once per Model so that Gradient allocates nothing.
type workspace struct {
	// stream[0] is the embedding's output, stream[l+1] block l's output.
	stream [][]float64
	blocks []blockCache
	head   headCache

	// grad is the gradient of the residual stream, carried backwards.
	grad             []float64
	blockScratch     blockScratch
	dlogits, dnormed []float64
	linear           linearScratch
}

func (m *Model) newWorkspace() *workspace {
	n, e := m.cfg.Batch*m.cfg.SeqLen, m.cfg.Embed
	layers := m.cfg.layers()
	ws := &workspace{
		stream:       make([][]float64, layers+1),
		blocks:       make([]blockCache, layers),
		head:         m.head.newCache(),
		grad:         make([]float64, n*e),
		blockScratch: m.block.newScratch(),
	}
	for i := range ws.stream {
		ws.stream[i] = make([]float64, n*e)
	}
	for i := range ws.blocks {
		ws.blocks[i] = m.block.newCache()
	}
	ws.dlogits, ws.dnormed = m.head.newScratch()
	// The largest transposed operands: a weight matrix (up to 4e×e, or
	// e×vocab in the head) or a layer input (up to n×4e), and a layer
	// output gradient (up to n×4e, or n×vocab in the head).
	v := len(m.vocab)
	ws.linear.a = make([]float64, max(4*e*max(e, n), e*v))
	ws.linear.b = make([]float64, n*max(4*e, v))
	return ws
}
