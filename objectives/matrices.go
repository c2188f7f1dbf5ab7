package objectives

import "fmt"

// Matrix is a weight matrix inside a stage's block: Rows·Cols coordinates
// from Offset (relative to the block's start), row-major. InputRows says
// that its rows index the layer's inputs (y = x·W, the character LM's
// layout); otherwise they index its outputs (y = W·x, torch's
// nn.Linear.weight). Muon's scale reads the fan-out and fan-in from it.
type Matrix struct {
	Offset, Rows, Cols int
	InputRows          bool
}

// Fans returns the matrix's outputs and inputs.
func (m Matrix) Fans() (out, in int) {
	if m.InputRows {
		return m.Cols, m.Rows
	}
	return m.Rows, m.Cols
}

// Matrices is an Objective that says which coordinates of its stage
// blocks are the weight matrices of hidden layers: the parameters Muon
// orthogonalises (optim.Muon). Every other coordinate (embeddings, the
// output head, biases, LayerNorm gains) is a parameter Muon's authors
// leave to AdamW. An objective without it has no such matrix, and Muon
// trains it with AdamW alone (the linear objectives, whose stage blocks
// are vectors; docs/methods.md).
type Matrices interface {
	Objective
	// StageMatrices returns the hidden-layer matrices of stage s's block,
	// by increasing offset and without overlap; nil when it has none.
	StageMatrices(s int) []Matrix
}

// CheckMatrices reports a layout that does not fit blocks (S+1 offsets):
// a matrix that is empty, overlaps the one before it or leaves its block.
func CheckMatrices(m Matrices, blocks []int) error {
	for s := 0; s+1 < len(blocks); s++ {
		end, n := 0, blocks[s+1]-blocks[s]
		for i, mx := range m.StageMatrices(s) {
			switch {
			case mx.Rows < 1 || mx.Cols < 1:
				return fmt.Errorf("stage %d matrix %d is %d×%d, not a matrix", s, i, mx.Rows, mx.Cols)
			case mx.Offset < end:
				return fmt.Errorf("stage %d matrix %d at %d overlaps the one before it (ending at %d)", s, i, mx.Offset, end)
			case mx.Offset+mx.Rows*mx.Cols > n:
				return fmt.Errorf("stage %d matrix %d (%d×%d at %d) leaves the block of %d", s, i, mx.Rows, mx.Cols, mx.Offset, n)
			}
			end = mx.Offset + mx.Rows*mx.Cols
		}
	}
	return nil
}
