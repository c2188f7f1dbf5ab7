package charlm

// stageOffsets returns the S+1 stage offsets: the embedding holds
// (vocab + seq)·embed parameters, each middle stage K blocks of
// 12·embed² + 13·embed, the head (2 + vocab)·embed.
func (m *Model) stageOffsets() []int {
	e, v := m.cfg.Embed, len(m.vocab)
	sizes := make([]int, 0, m.cfg.Stages)
	sizes = append(sizes, (v+m.cfg.SeqLen)*e)
	for range m.cfg.Stages - 2 {
		sizes = append(sizes, m.cfg.blocksPerStage()*m.block.size())
	}
	sizes = append(sizes, (2+v)*e)
	offsets := make([]int, len(sizes)+1)
	for s, n := range sizes {
		offsets[s+1] = offsets[s] + n
	}
	return offsets
}

// stage returns stage s's slice of a parameter (or gradient) vector.
func (m *Model) stage(v []float64, s int) []float64 {
	return v[m.offsets[s]:m.offsets[s+1]]
}

func (m *Model) embeddingParams(v []float64) embeddingParams {
	p := m.stage(v, 0)
	n := m.embed.vocab * m.embed.embed
	return embeddingParams{token: p[:n:n], position: p[n:]}
}

// blockParams returns GPT block layer's weights: block layer mod K of
// stage 1 + layer/K, the blocks of a stage laid out in order.
func (m *Model) blockParams(v []float64, layer int) blockParams {
	k, n := m.cfg.blocksPerStage(), m.block.size()
	within := layer % k * n
	return m.block.params(m.stage(v, 1+layer/k)[within : within+n : within+n])
}

func (m *Model) headParams(v []float64) headParams {
	p := m.stage(v, m.cfg.Stages-1)
	e := m.cfg.Embed
	return headParams{gain: p[:e:e], bias: p[e : 2*e : 2*e], out: p[2*e:]}
}
