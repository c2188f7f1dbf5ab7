package optim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline/sim"
)

// PipeMare is asynchronous pipeline training without weight stashing, with
// PipeMare's two corrections (Yang et al., "PipeMare: Asynchronous Pipeline
// Parallel DNN Training", MLSys 2021, arXiv 1910.05124), replayed on a
// timeline. Let τ be the number of stage s's own updates that landed
// between the forward F(m, s) and its backward (the stage's delay on the
// timeline; the update lands at the backward, so the backward's own delay
// is 0), and t the stage's updates before this one:
//
//   - learning-rate rescheduling: the update uses α_s(t) = α·max(τ, 1)^(−p_t),
//     p_t = 1 − min(t/T, 1), T = Warmup, α the optimizer's step size;
//   - discrepancy correction: the backward reads w − τ·δ instead of the
//     stage's current block w, δ the exponential average of the stage's
//     weight changes, δ ← D·δ + (1 − D)·(w_after − w_before) after every
//     update, D = Decay.
//
// The forward reads the current block. Other blocks enter the gradient as
// in PipeDreamNoStash; on a split backward of an objectives.Pipelined
// objective the corrected block is read at the I, τ counted to it, while
// the rescheduling takes τ at the W, where the update lands.
type PipeMare struct {
	Timeline *sim.Timeline
	// Warmup is T in a stage's own updates; zero means the run's updates
	// per stage, so the rescheduling fades out over the whole run.
	Warmup int
	// Decay is D, the EMA factor of δ, in [0, 1).
	Decay float64
}

// DefaultPipeMareDecay is the EMA factor D of δ when none is given.
const DefaultPipeMareDecay = 0.9

// Name returns "pipemare".
func (PipeMare) Name() string { return "pipemare" }

func (p PipeMare) replay(r *run) error {
	if p.Warmup < 0 {
		return fmt.Errorf("%w: pipemare warm-up T = %d must not be negative", ErrSettings, p.Warmup)
	}
	if !(p.Decay >= 0 && p.Decay < 1) || math.IsNaN(p.Decay) {
		return fmt.Errorf("%w: pipemare decay D = %g must be in [0, 1)", ErrSettings, p.Decay)
	}
	warmup := p.Warmup
	if warmup == 0 {
		if _, microbatches, err := checkTimeline(p.Timeline, r.stages); err == nil {
			warmup = max(microbatches, 1)
		}
		warmup = max(warmup, 1)
	}
	return replayAsync(r, p.Timeline, asyncRule{pipemare: true, warmup: warmup, decay: p.Decay})
}
