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
	return m.embeddingParamsOf(m.stage(v, 0))
}

// embeddingParamsOf cuts stage 0's block p into the embedding's weights.
func (m *Model) embeddingParamsOf(p []float64) embeddingParams {
	n := m.embed.vocab * m.embed.embed
	return embeddingParams{token: p[:n:n], position: p[n:]}
}

// blockParams returns GPT block layer's weights: block layer mod K of
// stage 1 + layer/K, the blocks of a stage laid out in order.
func (m *Model) blockParams(v []float64, layer int) blockParams {
	k := m.cfg.blocksPerStage()
	return m.blockParamsOf(m.stage(v, 1+layer/k), layer%k)
}

// blockParamsOf returns the weights of the j-th GPT block of a middle
// stage's block p.
func (m *Model) blockParamsOf(p []float64, j int) blockParams {
	if p == nil {
		return blockParams{} // a backward that forms no weight gradients
	}
	n := m.block.size()
	return m.block.params(p[j*n : (j+1)*n : (j+1)*n])
}

func (m *Model) headParams(v []float64) headParams {
	return m.headParamsOf(m.stage(v, m.cfg.Stages-1))
}

// headParamsOf cuts the last stage's block p into the head's weights.
func (m *Model) headParamsOf(p []float64) headParams {
	if p == nil {
		return headParams{} // a backward that forms no weight gradients
	}
	e := m.cfg.Embed
	return headParams{gain: p[:e:e], bias: p[e : 2*e : 2*e], out: p[2*e:]}
}
