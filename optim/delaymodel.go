package optim

import (
	"fmt"
	"math/rand/v2"
)

// Iteration is what a delay model decides for one RPD iteration: the
// stage whose block is updated, the microbatch whose batch is used (batch
// Microbatch mod Batches), and one delay per stage.
type Iteration struct {
	Stage      int
	Microbatch int
	Delays     []int
}

// DelayModel gives RPD its iterations (docs/reference.md §1.4).
type DelayModel interface {
	// Draw fills it (whose Delays has one entry per stage) with iteration
	// k's choices, drawing from rng if the model is random.
	Draw(k int, it *Iteration, rng *rand.Rand) error
	// Bound is δ, the largest delay the model gives; RPD keeps each
	// block's versions of the last δ updates.
	Bound() int
	// Len is the model's default number of iterations K.
	Len() int
}

// DefaultDelta returns ⌊S² - S/2⌋, PipeDream's steady-state delay bound
// and the paper's δ for RPD (docs/reference.md §1.3, §1.4).
func DefaultDelta(stages int) int { return stages*stages - (stages+1)/2 }

// Uniform is the paper's delay model: the stage is drawn uniformly, the
// batch uniformly from PipeDream's cyclic list of Microbatches microbatches,
// and each stage's delay independently from U{0, ..., min(δ, k)}, all from
// the run's sampling stream in that order.
type Uniform struct {
	Stages       int
	Delta        int // δ ≥ 0
	Microbatches int // N: K defaults to N·S
}

// Draw draws iteration k.
func (u Uniform) Draw(k int, it *Iteration, rng *rand.Rand) error {
	if u.Stages < 1 || u.Microbatches < 1 || u.Delta < 0 {
		return fmt.Errorf("%w: uniform delays need S ≥ 1, N ≥ 1 and δ ≥ 0 (got %d, %d, %d)", ErrSettings, u.Stages, u.Microbatches, u.Delta)
	}
	it.Stage = rng.IntN(u.Stages)
	it.Microbatch = rng.IntN(u.Microbatches)
	top := min(u.Delta, k) + 1
	for j := range it.Delays {
		it.Delays[j] = rng.IntN(top)
	}
	return nil
}

// Bound returns δ.
func (u Uniform) Bound() int { return u.Delta }

// Len returns N·S.
func (u Uniform) Len() int { return u.Microbatches * u.Stages }

// Draw returns row k of the table: with PipeDream's exact delays and op
// order this makes RPD replay PipeDream exactly (docs/reference.md §1.4).
func (d *DelayTable) Draw(k int, it *Iteration, _ *rand.Rand) error {
	if k >= len(d.Rows) {
		return fmt.Errorf("%w: iteration %d is past the delay table's %d rows", ErrSettings, k, len(d.Rows))
	}
	row := d.Rows[k]
	if len(row.Delays) != len(it.Delays) {
		return fmt.Errorf("%w: delay row %d has %d delays for %d stages", ErrSettings, k, len(row.Delays), len(it.Delays))
	}
	for j, v := range row.Delays {
		if v < 0 || v > k {
			return fmt.Errorf("%w: delay row %d: stage %d delay %d is outside 0..%d", ErrSettings, k, j, v, k)
		}
	}
	it.Stage, it.Microbatch = row.Stage, row.Microbatch
	copy(it.Delays, row.Delays)
	return nil
}

// Len returns the number of rows.
func (d *DelayTable) Len() int { return len(d.Rows) }

// Bound returns the largest delay in the table, δ for RPD's version
// history.
func (d *DelayTable) Bound() int {
	b := 0
	for _, r := range d.Rows {
		for _, v := range r.Delays {
			b = max(b, v)
		}
	}
	return b
}
