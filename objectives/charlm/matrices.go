package charlm

import "github.com/pipelab/pipelab/objectives"

// StageMatrices returns the hidden-layer weight matrices of stage s's
// block (objectives.Matrices), offsets relative to the block: for every
// GPT block of a middle stage, the attention's QKV projection (E×3E) and
// output projection (E×E) and the MLP's two matrices (E×4E, 4E×E), in
// the layout's order, each stored in×out (y = x·W). The embedding stage and the head hold none: Muon's
// authors train the embeddings, the output head, the biases and the
// LayerNorm parameters with AdamW (docs/methods.md).
func (m *Model) StageMatrices(s int) []objectives.Matrix {
	if s <= 0 || s >= m.cfg.Stages-1 {
		return nil
	}
	e, size := m.cfg.Embed, m.block.size()
	var out []objectives.Matrix
	for j := range m.cfg.blocksPerStage() {
		base := j * size
		// The order of block.params: LN1 gain and bias, wqkv, bqkv, wo,
		// bo, LN2 gain and bias, w1, b1, w2, b2.
		qkv := base + 2*e
		wo := qkv + 3*e*e + 3*e
		w1 := wo + e*e + e + 2*e
		w2 := w1 + 4*e*e + 4*e
		out = append(out,
			objectives.Matrix{Offset: qkv, Rows: e, Cols: 3 * e, InputRows: true},
			objectives.Matrix{Offset: wo, Rows: e, Cols: e, InputRows: true},
			objectives.Matrix{Offset: w1, Rows: e, Cols: 4 * e, InputRows: true},
			objectives.Matrix{Offset: w2, Rows: 4 * e, Cols: e, InputRows: true})
	}
	return out
}
