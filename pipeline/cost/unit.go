package cost

import "github.com/pipelab/pipelab/pipeline"

// Unit prices every compute action at one step and every transfer at
// zero: the unit-time model of the PipeDream paper's timeline and of
// PyTorch's lockstep simulator (docs/reference.md §1.2, §3). A full backward B
// is one step like F, I and W, so a table that splits B into I and W takes
// two steps where the unsplit one takes one; an OVERLAP_F_B cell is one
// step too. Actions that are neither compute nor transfers cost nothing.
type Unit struct{}

// Compute returns 1 for F, B, I, W and OVERLAP_F_B, 0 otherwise.
func (Unit) Compute(a pipeline.Action) float64 {
	if a.Kind.IsCompute() {
		return 1
	}
	return 0
}

// Transfer returns 0: communication is free in unit time.
func (Unit) Transfer(pipeline.Action, int, int) float64 { return 0 }
