package optim

import "github.com/pipelab/pipelab/pipeline/sim"

// PipeDreamNoStash is asynchronous PipeDream without weight stashing: the
// forward F(m, s) reads stage s's block current at its time, and the
// backward reads the block current at its own time, the inconsistency
// that weight stashing exists to remove (Harlap et al., arXiv 1806.03377,
// §3.3). The rule as implemented: the gradient of block s for microbatch m
// is taken through the activations m's forwards left, with block s as the
// backward finds it. For the linear objectives, whose block gradient
// X_{b,s}ᵀr/B does not read the stage's own weights, this equals
// PipeDream unless an L2 term reads them (logistic). For an
// objectives.Pipelined one (the LM) the backward of stage s multiplies by
// the block it finds and passes its input gradient on, so the blocks the
// later stages' backwards found enter it too, as in a pipeline; a split
// backward finds the block at its I. Updates land as in PipeDream.
type PipeDreamNoStash struct {
	Timeline *sim.Timeline
}

// Name returns "pd-nostash".
func (PipeDreamNoStash) Name() string { return "pd-nostash" }

func (p PipeDreamNoStash) replay(r *run) error {
	return replayAsync(r, p.Timeline, asyncRule{noStash: true})
}
