package charlm

// embedding is stage 0: each input character's token embedding plus its
// position's learned embedding.
type embedding struct {
	batch, seq, vocab, embed int
}

// embeddingParams are the stage's weights (or their gradients): token is
// vocab×embed, position seq×embed.
type embeddingParams struct {
	token, position []float64
}

// forward sets out[b·seq+t] = token[ids[b·seq+t]] + position[t].
func (m embedding) forward(out []float64, ids []int32, p embeddingParams) {
	e := m.embed
	for i, id := range ids[:m.batch*m.seq] {
		t := i % m.seq
		o := out[i*e : i*e+e]
		copy(o, p.token[int(id)*e:int(id)*e+e])
		add(o, p.position[t*e:])
	}
}

// backward accumulates dout's rows into the gradients of the token and
// position rows that produced them.
func (m embedding) backward(g embeddingParams, dout []float64, ids []int32) {
	e := m.embed
	for i, id := range ids[:m.batch*m.seq] {
		t := i % m.seq
		d := dout[i*e : i*e+e]
		add(g.token[int(id)*e:int(id)*e+e], d)
		add(g.position[t*e:t*e+e], d)
	}
}
