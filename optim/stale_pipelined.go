package optim

import "github.com/pipelab/pipelab/objectives"

// tripGradient takes RPD's stale block gradients of a Pipelined
// objective through one pass: the forward of every stage at its stale
// block, then the backwards from the last stage down to the stepping
// one, skipping the stages below it, whose gradients the step does not
// use, and forming no block gradient above it where the pass can skip it
// (objectives.InputPass). Block s's gradient is the one Gradient would give at the
// assembled point, bit for bit (objectives.Pipelined), at about two
// thirds of its cost on average over the stages.
type tripGradient struct {
	trip    objectives.Pass
	input   objectives.InputPass // trip, if its backward can skip the block gradient
	scratch []float64            // the gradients of the stages above s, discarded
}

func newTripGradient(r *run, pl objectives.Pipelined) *tripGradient {
	tg := &tripGradient{trip: pl.NewPass()}
	if ip, ok := tg.trip.(objectives.InputPass); ok {
		tg.input = ip
	} else {
		tg.scratch = make([]float64, r.maxBlock())
	}
	return tg
}

// compute writes into g the gradient of block s at the point whose
// blocks are z, on batch.
func (tg *tripGradient) compute(r *run, g []float64, z [][]float64, s, batch int) {
	for j, zj := range z {
		tg.trip.Forward(zj, batch, j)
	}
	for j := r.stages - 1; j > s; j-- {
		if tg.input != nil {
			tg.input.BackwardInput(z[j], j)
		} else {
			tg.trip.Backward(tg.scratch[:r.blockLen(j)], z[j], j)
		}
	}
	tg.trip.Backward(g, z[s], s)
}
