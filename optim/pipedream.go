package optim

import "github.com/pipelab/pipelab/pipeline/sim"

// PipeDream replays a timeline as asynchronous PipeDream with weight
// stashing (Harlap et al., arXiv 1806.03377; docs/reference.md §1.2, §4):
// F(m, s) stashes stage s's current block, and the weight-gradient
// backward of m on s (B, or W of a split backward) computes the block
// gradient at the stashed point z_m and updates the stage's current block
// at once with the run's optimizer, x_s ← x_s − γ·g for plain SGD, in the
// replay order of start time then stage. Microbatch m uses batch m mod
// Batches. Any timeline of F, B, I and W actions can be replayed this way,
// generated or imported; a flush schedule is replayed as if its stages
// updated after every backward.
type PipeDream struct {
	Timeline *sim.Timeline
}

// Name returns "pipedream".
func (PipeDream) Name() string { return "pipedream" }

func (p PipeDream) replay(r *run) error { return replayAsync(r, p.Timeline, asyncRule{}) }
