package charlm

// stageMemory is what stage s's forward leaves for its backward: the
// outputs and caches of the stage's layers (stage 0: the embedding's
// output; the head's stage: its caches). A Pass holds a stage's memory
// from the stage's forward to its backward only, as a pipeline holds a
// microbatch's activations on a device, so the microbatches a replay
// keeps in flight cost what their stages hold, not a whole model's
// activations each.
type stageMemory struct {
	stream [][]float64
	blocks []blockCache
	head   headCache
}

// stagePool keeps each stage's released memory for the next trip: a
// model allocates, per stage, as many as its trips ever hold at once.
type stagePool struct {
	free [][]*stageMemory
}

// acquireStage returns memory for stage s's forward, reusing released
// memory when there is some.
func (m *Model) acquireStage(s int) *stageMemory {
	pool := &m.ws.stages
	if pool.free == nil {
		pool.free = make([][]*stageMemory, m.cfg.Stages)
	}
	if n := len(pool.free[s]); n > 0 {
		mem := pool.free[s][n-1]
		pool.free[s] = pool.free[s][:n-1]
		return mem
	}
	return m.newStageMemory(s)
}

// releaseStage returns stage s's memory to the pool.
func (m *Model) releaseStage(s int, mem *stageMemory) {
	m.ws.stages.free[s] = append(m.ws.stages.free[s], mem)
}

func (m *Model) newStageMemory(s int) *stageMemory {
	n, e := m.cfg.Batch*m.cfg.SeqLen, m.cfg.Embed
	mem := &stageMemory{}
	switch s {
	case 0:
		mem.stream = [][]float64{make([]float64, n*e)}
	case m.cfg.Stages - 1:
		mem.head = m.head.newCache()
	default:
		k := m.cfg.blocksPerStage()
		mem.stream, mem.blocks = make([][]float64, k), make([]blockCache, k)
		for j := range k {
			mem.stream[j], mem.blocks[j] = make([]float64, n*e), m.block.newCache()
		}
	}
	return mem
}

// wireStage points a's entries for stage s at mem, or clears them when
// mem is nil, so that a stage whose memory was released cannot be read.
func (m *Model) wireStage(a *activations, s int, mem *stageMemory) {
	switch s {
	case 0:
		a.stream[0] = nil
		if mem != nil {
			a.stream[0] = mem.stream[0]
		}
	case m.cfg.Stages - 1:
		a.head = headCache{}
		if mem != nil {
			a.head = mem.head
		}
	default:
		k := m.cfg.blocksPerStage()
		for j := range k {
			l := (s-1)*k + j
			a.stream[l+1], a.blocks[l] = nil, blockCache{}
			if mem != nil {
				a.stream[l+1], a.blocks[l] = mem.stream[j], mem.blocks[j]
			}
		}
	}
}
