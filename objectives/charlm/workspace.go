package charlm

// activations is what one batch's forward pass leaves for its backward
// pass: every layer's output and caches, and the gradient carried back
// through the residual stream. A workspace holds one; each Pass of a
// pipeline replay holds views of the stages it has in flight
// (stageMemory).
type activations struct {
	// stream[0] is the embedding's output, stream[l+1] block l's output.
	stream [][]float64
	blocks []blockCache
	head   headCache

	// grad is the gradient of the residual stream, carried backwards.
	grad []float64
}

func (m *Model) newActivations() activations {
	n, e := m.cfg.Batch*m.cfg.SeqLen, m.cfg.Embed
	layers := m.cfg.layers()
	a := activations{
		stream: make([][]float64, layers+1),
		blocks: make([]blockCache, layers),
		head:   m.head.newCache(),
		grad:   make([]float64, n*e),
	}
	for i := range a.stream {
		a.stream[i] = make([]float64, n*e)
	}
	for i := range a.blocks {
		a.blocks[i] = m.block.newCache()
	}
	return a
}

// workspace is the memory a forward and backward pass reuse, allocated
// once per Model so that Gradient allocates nothing: one set of
// activations and the scratch every pass shares.
type workspace struct {
	activations
	blockScratch     blockScratch
	dlogits, dnormed []float64
	linear           linearScratch
	stages           stagePool // the memory of the Passes' stages
}

func (m *Model) newWorkspace() *workspace {
	n, e := m.cfg.Batch*m.cfg.SeqLen, m.cfg.Embed
	ws := &workspace{activations: m.newActivations(), blockScratch: m.block.newScratch()}
	ws.dlogits, ws.dnormed = m.head.newScratch()
	// The largest transposed operand: a weight matrix (up to 4e×e, or
	// e×vocab in the head) or a layer input (up to n×4e); and the largest
	// transposed weight matrix.
	v := len(m.vocab)
	ws.linear.a = make([]float64, max(4*e*max(e, n), e*v))
	ws.linear.b = make([]float64, max(4*e*e, e*v))
	if w := m.cfg.workers(); w > 1 {
		ws.linear.rows = make([]linearScratch, w)
	}
	return ws
}

// MaxWorkspaceBytes bounds the memory New allocates for a model's
// workspaces, so that a configuration too large for the machine is an
// error instead of an out-of-memory crash.
const MaxWorkspaceBytes = 2 << 30

// workspaceFloats bounds the number of float64s newWorkspace allocates
// (tested): per GPT block its output and caches (24·n·e + 2n + B·H·T² for
// n = B·T tokens), plus the embedding's output, the head's caches and the
// shared scratch. It counts in float64, which cannot overflow where the
// ints of an absurd configuration would.
func workspaceFloats(cfg Config, vocab int) float64 {
	b, t, e, h, v := float64(cfg.Batch), float64(cfg.SeqLen), float64(cfg.Embed), float64(cfg.Heads), float64(vocab)
	n := b * t
	perBlock := 24*n*e + 2*n + b*h*t*t
	head := 3*n*e + n + 2*n*v
	scratch := 11*n*e + t + max(4*e*max(e, n), e*v) + max(4*e*e, e*v)
	return float64(cfg.layers())*perBlock + n*e + head + scratch
}

// activationFloats is the part of workspaceFloats one batch's activations
// take (tested): per GPT block, the embedding's output, the head's caches
// and the residual stream's gradient.
func activationFloats(cfg Config, vocab int) float64 {
	b, t, e, h, v := float64(cfg.Batch), float64(cfg.SeqLen), float64(cfg.Embed), float64(cfg.Heads), float64(vocab)
	n := b * t
	perBlock := 24*n*e + 2*n + b*h*t*t
	head := 2*n*e + n + n*v
	return float64(cfg.layers())*perBlock + n*e + head + n*e
}
