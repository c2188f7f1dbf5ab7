package optim

import (
	"fmt"
	"github.com/pipelab/pipelab/pipeline/sim"
	"math"
	"math/rand/v2"
)

// The delay models below drive RPD with what PipeDream's timeline measures
// (Delays, StageDelays) instead of the paper's δ = ⌊S² - S/2⌋, so that the
// cost of staleness a uniform delay predicts can be set against PipeDream's
// own (docs/figures.md, delay-profiles). Both draw the updated stage
// uniformly, as the paper's Uniform does; they differ from it, and from
// each other, only in where the delays come from.

// UniformAtMean is the paper's uniform delay at PipeDream's mean rather than
// at its maximum: the stage and the batch are drawn as Uniform draws them,
// and each stage's delay from U{0, ..., min(δ, k)}, where δ is ⌊2m⌋ with
// probability ⌊2m⌋ + 1 − 2m and ⌊2m⌋ + 1 otherwise, drawn afresh for every
// delay. U{0..δ} has mean δ/2, so once k ≥ ⌊2m⌋ + 1 every delay has mean m
// exactly, whether 2m is a whole number or not (a single δ = round(2m)
// would miss m by up to 1/2). The delays of one iteration are independent
// and the same law serves every stage: the model keeps PipeDream's mean,
// not its profile.
type UniformAtMean struct {
	Stages       int
	Mean         float64 // m ≥ 0, PipeDream's mean delay
	Microbatches int     // N: K defaults to N·S
}

// bounds returns the two bounds of the mixture and the probability of the
// lower one.
func (u UniformAtMean) bounds() (lo, hi int, pLo float64) {
	lo = int(math.Floor(2 * u.Mean))
	return lo, lo + 1, float64(lo+1) - 2*u.Mean
}

// Draw draws iteration k: the stage, the microbatch, then for each stage
// the bound and the delay, all from rng in that order.
func (u UniformAtMean) Draw(k int, it *Iteration, rng *rand.Rand) error {
	if u.Stages < 1 || u.Microbatches < 1 || !(u.Mean >= 0) || u.Mean > math.MaxInt32/2 {
		return fmt.Errorf("%w: uniform delays at a mean need S ≥ 1, N ≥ 1 and a finite mean m ≥ 0 (got %d, %d, %g)", ErrSettings, u.Stages, u.Microbatches, u.Mean)
	}
	it.Stage = rng.IntN(u.Stages)
	it.Microbatch = rng.IntN(u.Microbatches)
	lo, hi, pLo := u.bounds()
	for j := range it.Delays {
		d := hi
		if rng.Float64() < pLo {
			d = lo
		}
		it.Delays[j] = rng.IntN(min(d, k) + 1)
	}
	return nil
}

// Bound returns ⌊2m⌋ + 1, the larger of the two bounds.
func (u UniformAtMean) Bound() int {
	_, hi, _ := u.bounds()
	return hi
}

// Len returns N·S.
func (u UniformAtMean) Len() int { return u.Microbatches * u.Stages }

// StageTrace replays PipeDream's measured delays stage by stage: each stage
// keeps its own sequence of block updates from a delay table (Delays of
// PipeDream's timeline), in the table's order, with each update's
// microbatch and its delay of every stage's block. At iteration k the stage
// is drawn uniformly, as the paper's Uniform draws it, and the stage's next
// update of the table gives the microbatch and the delays, each capped at k
// (RPD cannot read before its start). A stage that has used all its
// updates starts again at the second half of them, the steady state.
//
// What it keeps of PipeDream: every stage's delay profile and its order in
// time (warm-up first, then the steady state), the delays of the other
// blocks that go with each update, and each stage's order of batches. What
// it drops: the joint order of the stages, which PipeDream fixes (its
// updates cycle through the stages, the last first) and the model draws at
// random, so the number of updates between two reads is PipeDream's only on
// average. With the table's stages in the table's order RPD would be
// PipeDream exactly (DelayTable.Draw, docs/reference.md §1.4).
//
// A StageTrace has a cursor per stage: Draw(0, ...) rewinds them, and one
// value must not serve two runs at once.
type StageTrace struct {
	stages int
	rows   [][]DelayRow // rows[s]: stage s's updates in table order
	next   []int        // next[s]: stage s's next row
	bound  int
	len    int
}

// NewStageTrace splits a delay table into its stages' sequences. Every stage
// must have at least one update.
func NewStageTrace(dt *DelayTable) (*StageTrace, error) {
	if dt == nil || dt.Stages < 1 {
		return nil, fmt.Errorf("%w: a stage trace needs a delay table with at least one stage", ErrSettings)
	}
	st := &StageTrace{stages: dt.Stages, rows: make([][]DelayRow, dt.Stages), next: make([]int, dt.Stages),
		bound: dt.Bound(), len: len(dt.Rows)}
	for i, r := range dt.Rows {
		if r.Stage < 0 || r.Stage >= dt.Stages || len(r.Delays) != dt.Stages {
			return nil, fmt.Errorf("%w: delay row %d: stage %d with %d delays in a table of %d stages", ErrSettings, i, r.Stage, len(r.Delays), dt.Stages)
		}
		st.rows[r.Stage] = append(st.rows[r.Stage], r)
	}
	for s, rs := range st.rows {
		if len(rs) == 0 {
			return nil, fmt.Errorf("%w: the delay table has no update of stage %d", ErrSettings, s)
		}
	}
	return st, nil
}

// Draw draws iteration k's stage from rng and takes that stage's next row.
func (st *StageTrace) Draw(k int, it *Iteration, rng *rand.Rand) error {
	if len(it.Delays) != st.stages {
		return fmt.Errorf("%w: a stage trace of %d stages for %d delays", ErrSettings, st.stages, len(it.Delays))
	}
	if k == 0 {
		clear(st.next)
	}
	s := rng.IntN(st.stages)
	rs := st.rows[s]
	if st.next[s] == len(rs) {
		st.next[s] = len(rs) / 2
	}
	row := rs[st.next[s]]
	st.next[s]++
	it.Stage, it.Microbatch = s, row.Microbatch
	for j, d := range row.Delays {
		it.Delays[j] = min(d, k)
	}
	return nil
}

// Bound returns the largest delay of the table.
func (st *StageTrace) Bound() int { return st.bound }

// Len returns the table's number of updates, PipeDream's N·S.
func (st *StageTrace) Len() int { return st.len }

// The names of the measured delay models, as spec keys, flags and the
// runs table's delay_model spell them.
const (
	DelayModelPipeDreamMean    = "pipedream-mean"    // UniformAtMean at PipeDream's steady-state mean
	DelayModelPipeDreamProfile = "pipedream-profile" // StageTrace of PipeDream's delay rows
)

// MeasuredDelayModel returns the delay model named name measured on pd,
// PipeDream's timeline of n microbatches: UniformAtMean at its
// steady-state mean delay (DelayModelPipeDreamMean) or the StageTrace of
// its delay rows (DelayModelPipeDreamProfile).
func MeasuredDelayModel(name string, pd *sim.Timeline, n int) (DelayModel, error) {
	switch name {
	case DelayModelPipeDreamMean:
		p, err := StageDelays(pd, Steady)
		if err != nil {
			return nil, err
		}
		return UniformAtMean{Stages: pd.Table.Stages(), Mean: p.Total.Mean, Microbatches: n}, nil
	case DelayModelPipeDreamProfile:
		dt, err := Delays(pd)
		if err != nil {
			return nil, err
		}
		return NewStageTrace(dt)
	}
	return nil, fmt.Errorf("%w: unknown measured delay model %q (known: %s, %s)", ErrSettings, name, DelayModelPipeDreamMean, DelayModelPipeDreamProfile)
}
