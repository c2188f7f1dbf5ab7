package objectives

import "math/rand/v2"

// Objective is a finite-sum loss whose parameter vector is cut into one
// contiguous block per pipeline stage. The optimizers in package optim see
// nothing else of a problem.
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

// ContiguousBlocks cuts d coordinates into s contiguous blocks, the first
// d mod s of them one coordinate longer (REFERENCE.md §1.1), and returns
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
