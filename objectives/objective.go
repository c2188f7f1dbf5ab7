package objectives

import "math/rand/v2"

// Objective is a finite-sum loss whose parameter vector is cut into one
// contiguous block per pipeline stage. It is all the optimizers in package
// optim need of a problem; Stagewise and Tracked are optional faster paths
// they take when a problem offers them.
type Objective interface {
	// Dim is the number of parameters d.
	Dim() int
	// Blocks returns S+1 offsets: stage s owns x[b[s]:b[s+1]].
	Blocks() []int
	// Batches is the number of batches; batch k of a run is k mod Batches.
	Batches() int
	// Init returns a fresh initial point (zero for the linear objectives).
	Init() []float64
	// Loss returns the full objective f(x), the value that is logged.
	Loss(x []float64) float64
	// Gradient writes into g (length Dim) the stochastic gradient of batch
	// b at x. An objective with gradient noise draws it from noise, which
	// the caller owns (one stream per run); others ignore it.
	Gradient(g, x []float64, b int, noise *rand.Rand)
}

// Stagewise is an Objective whose batch gradient a pipeline computes a
// stage at a time, as the linear objectives do (docs/reference.md §1.1): stage s
// adds its block's contribution to a running activation, the last stage
// turns the activation into an output gradient, and each stage's block
// gradient follows from that output gradient. Replaying a schedule this way
// costs one forward and one backward per microbatch, as a real pipeline
// does, instead of one full gradient per block update.
type Stagewise interface {
	Objective
	// BatchRows is the number of examples in batch b.
	BatchRows(b int) int
	// Forward adds stage s's contribution, computed with block xs, to the
	// activation act (length BatchRows(b)) of batch b.
	Forward(act, xs []float64, b, s int)
	// OutputGradient writes into r the gradient of batch b's mean loss
	// with respect to the final activation act.
	OutputGradient(r, act []float64, b int)
	// BlockGradient writes into g (length of block s) the stochastic
	// gradient of block s for batch b, given the output gradient r and the
	// block xs the forward used. Gradient noise, if any, is drawn from noise
	// for the block's coordinates in order; a nil noise draws none.
	BlockGradient(g, r, xs []float64, b, s int, noise *rand.Rand)
}

// Tracked is an Objective that can keep its full-data loss up to date as
// blocks change, so that logging the loss costs O(n) rather than O(nd).
type Tracked interface {
	Objective
	// Track returns a tracker of the loss at x (O(nd) once).
	Track(x []float64) Tracker
}

// Tracker follows the full-data activations of a changing point.
type Tracker interface {
	// Shift records that block s of the point moved by scale·delta
	// (O(n·len(delta))).
	Shift(s int, delta []float64, scale float64)
	// Loss returns f at the tracked point, which must equal x (O(n + d)).
	Loss(x []float64) float64
}

// ContiguousBlocks cuts d coordinates into s contiguous blocks, the first
// d mod s of them one coordinate longer (docs/reference.md §1.1), and returns
// the s+1 offsets.
func ContiguousBlocks(d, s int) []int {
	b := make([]int, s+1)
	base, extra := d/s, d%s
	for i := 0; i < s; i++ {
		n := base
		if i < extra {
			n++
		}
		b[i+1] = b[i] + n
	}
	return b
}

// Validated is an Objective with a held-out set it never trains on, such
// as the character LM's last tenth of its corpus. The optimizers record
// the validation loss beside the training loss, and a target loss is
// judged on it when the objective has one.
type Validated interface {
	Objective
	// ValidationLoss returns the mean loss on the held-out set at x.
	ValidationLoss(x []float64) float64
}
