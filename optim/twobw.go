package optim

import (
	"fmt"

	"pipelab/pipeline/sim"
)

// TwoBW is PipeDream-2BW (Narayanan et al., "Memory-Efficient
// Pipeline-Parallel DNN Training", ICML 2021, arXiv 2006.09503) replayed on
// a timeline: the microbatches are cut into groups of Accumulate
// consecutive ones (the last group may be shorter), each gradient is taken
// at its forward's stashed point as in PipeDream, and each stage updates
// once per group, after the group's last backward on that stage, with the
// mean of the group's gradients. Forwards read the stage's current block,
// so a group's forwards read the weights of however many groups have
// landed on the stage by then: VersionAges measures it on the timeline,
// which 2BW's design fixes at one version behind, w(t+1) = w(t) −
// γ·∇f(w(t−1)), with two versions kept (docs/methods.md). Accumulate 1 is
// PipeDream.
type TwoBW struct {
	Timeline *sim.Timeline
	// Accumulate is A, the microbatches per update; zero means S, the
	// stage count, 2BW's smallest group.
	Accumulate int
}

// Name returns "2bw".
func (TwoBW) Name() string { return "2bw" }

func (t TwoBW) replay(r *run) error {
	a := t.Accumulate
	if a == 0 {
		a = r.stages
	}
	if a < 1 {
		return fmt.Errorf("%w: 2bw accumulates %d microbatches per update, at least 1 needed", ErrSettings, a)
	}
	return replayAsync(r, t.Timeline, asyncRule{accumulate: a})
}
