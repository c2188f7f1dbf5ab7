package optim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pipelab/pipelab/objectives"
)

// Method is an optimization method: PipeDream, Sync, LocalSGD or RPD.
type Method interface {
	// Name is the method's name as results record it.
	Name() string
	replay(r *run) error
}

// ErrSettings marks settings that cannot run.
var ErrSettings = errors.New("optim: invalid settings")

// Run optimizes obj with method m under set and returns the result. A run
// whose loss becomes non-finite stops there and is marked Diverged; that
// is a result, not an error. Errors report settings or timelines that
// cannot be replayed, and Recorder errors.
func Run(obj objectives.Objective, m Method, set Settings) (*Result, error) {
	if obj == nil || m == nil {
		return nil, fmt.Errorf("%w: objective and method are required", ErrSettings)
	}
	if !(set.StepSize > 0) || math.IsInf(set.StepSize, 0) {
		return nil, fmt.Errorf("%w: step size %g must be positive and finite", ErrSettings, set.StepSize)
	}
	if set.LogEvery < 0 || set.LogPoints < 0 {
		return nil, fmt.Errorf("%w: LogEvery %d and LogPoints %d must not be negative", ErrSettings, set.LogEvery, set.LogPoints)
	}
	if err := set.Optimizer.Validate(); err != nil {
		return nil, err
	}
	if mx, ok := obj.(objectives.Matrices); ok && set.Optimizer.Algorithm == Muon {
		if err := objectives.CheckMatrices(mx, obj.Blocks()); err != nil {
			return nil, fmt.Errorf("%w: muon: %v", ErrSettings, err)
		}
	}
	if !(set.TargetLoss >= 0) || !(set.Budget >= 0) || math.IsInf(set.TargetLoss, 0) || math.IsInf(set.Budget, 0) {
		return nil, fmt.Errorf("%w: target loss %g and budget %g must be non-negative and finite", ErrSettings, set.TargetLoss, set.Budget)
	}
	r := &run{
		obj:    obj,
		set:    set,
		blocks: obj.Blocks(),
		noise:  objectives.NewRand(set.Seed, objectives.StreamNoise),
		res: &Result{Method: m.Name(), StepSize: set.StepSize, Seed: set.Seed,
			TimeToTarget: math.NaN(), UpdatesToTarget: -1, LossAtBudget: math.NaN()},
	}
	r.validated, _ = obj.(objectives.Validated)
	r.stages = len(r.blocks) - 1
	if err := m.replay(r); err != nil {
		return nil, fmt.Errorf("optim: %s: %w", m.Name(), err)
	}
	return r.res, nil
}

// run is the state every method shares: the objective, the log grid, the
// loss tracker and the result being filled.
type run struct {
	obj    objectives.Objective
	set    Settings
	blocks []int
	stages int
	noise  *rand.Rand

	every     int // block updates between records
	next      int // update count of the next record
	tracker   objectives.Tracker
	validated objectives.Validated // nil when the objective has no held-out set
	stopped   bool                 // a record diverged
	res       *Result

	// targetEvery is the spacing of the target grid, the points at which
	// the time to target is judged, when it is finer than the records'
	// (0: the target is judged at the records); targetNext is its next
	// point.
	targetEvery, targetNext int

	// total is the run's block updates, progressEvery and progressNext
	// the spacing and the next point of Settings.Progress's calls.
	total, progressEvery, progressNext int
	// cancelNext is the block update at which Settings.Context is looked
	// at next.
	cancelNext int

	opt           *stepper
	wantDirection bool // keep SGD's last gradient (weight prediction reads it)
	budgetTaken   bool // LossAtBudget is set
}

// block returns block s of x.
func (r *run) block(x []float64, s int) []float64 { return x[r.blocks[s]:r.blocks[s+1]] }

// blockLen returns the length of block s.
func (r *run) blockLen(s int) int { return r.blocks[s+1] - r.blocks[s] }

// maxBlock returns the length of the longest block, the size of a gradient
// buffer that serves every stage.
func (r *run) maxBlock() int {
	n := 0
	for s := 0; s < r.stages; s++ {
		n = max(n, r.blockLen(s))
	}
	return n
}

// begin fixes the log grid for a run of total block updates and records
// the initial point x.
//
// The loss is either evaluated afresh at each record (O(nd) each) or
// followed through every block update by a tracker (O(n·d/S) each), which
// pays off only when records are denser than one per S updates; the
// cheaper way is chosen, so the run's cost does not grow with a logging
// density it was not asked for.
//
// begin also gives every stage of every one of replicas copies a fresh
// optimizer state; the learning-rate schedule spans total/(S·replicas)
// updates per stage.
func (r *run) begin(total int, x []float64, replicas int) error {
	r.opt = newStepper(r, replicas, total/(r.stages*replicas))
	r.every = r.set.LogEvery
	if r.every == 0 {
		r.every = max(1, total/cmp.Or(r.set.LogPoints, DefaultRecords))
	}
	r.next = r.every
	r.total, r.progressEvery = total, max(1, total/1000)
	r.progressNext = r.progressEvery
	if te := max(1, total/DefaultRecords); r.set.TargetLoss > 0 && te < r.every {
		r.targetEvery, r.targetNext = te, te
	}
	if t, ok := r.obj.(objectives.Tracked); ok && r.every < r.stages {
		r.tracker = t.Track(x)
	}
	return r.record(0, x, true)
}

// shift tells the tracker that block s moved by scale·g.
func (r *run) shift(s int, g []float64, scale float64) {
	if r.tracker != nil {
		r.tracker.Shift(s, g, scale)
	}
}

// cancelEvery is how many block updates pass between two looks at
// Settings.Context: the look costs nothing beside an update.
const cancelEvery = 256

// advance counts n block updates that completed at time t and records the
// loss at point() if the log grid asks for it. Until the target is reached
// it also judges point() against it where the target grid asks for it:
// the judged loss alone (the validation loss where there is one), or the
// record when one is due at the same update.
func (r *run) advance(n int, t float64, point func() []float64) error {
	r.res.BlockUpdates += n
	if r.set.Context != nil && r.res.BlockUpdates >= r.cancelNext {
		r.cancelNext = r.res.BlockUpdates + cancelEvery
		if err := r.set.Context.Err(); err != nil {
			return err
		}
	}
	if r.set.Progress != nil && r.res.BlockUpdates >= r.progressNext {
		r.progressNext = (r.res.BlockUpdates/r.progressEvery + 1) * r.progressEvery
		r.set.Progress(r.res.BlockUpdates, r.total)
	}
	check := r.targetEvery > 0 && r.res.UpdatesToTarget < 0 && r.res.BlockUpdates >= r.targetNext
	if check {
		r.targetNext = (r.res.BlockUpdates/r.targetEvery + 1) * r.targetEvery
	}
	if r.res.BlockUpdates >= r.next {
		r.next = (r.res.BlockUpdates/r.every + 1) * r.every
		return r.record(t, point(), check)
	}
	if check {
		x := point()
		if r.validated != nil {
			r.reach(t, r.validated.ValidationLoss(x))
		} else {
			r.reach(t, r.loss(x))
		}
	}
	return nil
}

// reach times the target at time t, after the run's block updates so
// far, if judged is the first judged loss at or below it.
func (r *run) reach(t, judged float64) {
	if r.set.TargetLoss > 0 && r.res.UpdatesToTarget < 0 && judged <= r.set.TargetLoss {
		r.res.TimeToTarget, r.res.UpdatesToTarget = t, r.res.BlockUpdates
	}
}

// finish records the final point unless the last record already holds it
// (which is then judged against the target, as the end always is), and
// fills the rest of the result.
func (r *run) finish(t float64, x []float64) error {
	r.res.Time = t
	r.res.X = append([]float64(nil), x...)
	if n := len(r.res.Records); n == 0 || r.res.Records[n-1].Updates != r.res.BlockUpdates {
		if err := r.record(t, x, true); err != nil {
			return err
		}
	} else if last := r.res.Records[n-1]; r.validated != nil {
		r.reach(last.Time, last.ValidationLoss)
	} else {
		r.reach(last.Time, last.Loss)
	}
	r.res.FinalLoss = r.res.Records[len(r.res.Records)-1].Loss
	if r.set.Budget > 0 && !r.budgetTaken {
		r.res.LossAtBudget = r.res.FinalLoss
	}
	return nil
}

// landing is called before an update that ends at time t is applied to
// the point that point() returns: the first one past the budget fixes
// LossAtBudget at the point as it stands, after the last update within it.
func (r *run) landing(t float64, point func() []float64) {
	if r.set.Budget > 0 && !r.budgetTaken && t > r.set.Budget {
		r.budgetTaken = true
		r.res.LossAtBudget = r.loss(point())
	}
}

// loss returns f at x, through the tracker when there is one.
func (r *run) loss(x []float64) float64 {
	if r.tracker != nil {
		return r.tracker.Loss(x)
	}
	return r.obj.Loss(x)
}

// record logs the loss at x (and the validation loss, when the objective
// has a held-out set), times the target if judge says this point is one
// it is judged at (the start, the end, a point of the target grid, or
// every record when the run has no grid finer than the records'), and
// stops a diverged run: one whose loss is not finite or exceeds
// DivergenceFactor times the initial loss.
func (r *run) record(t float64, x []float64, judge bool) error {
	f := r.loss(x)
	rec := Record{Time: t, Updates: r.res.BlockUpdates, Loss: f, ValidationLoss: math.NaN()}
	judged := f
	if r.validated != nil {
		rec.ValidationLoss = r.validated.ValidationLoss(x)
		judged = rec.ValidationLoss
	}
	r.res.Records = append(r.res.Records, rec)
	if judge || r.targetEvery == 0 {
		r.reach(t, judged)
	}
	if f0 := r.res.Records[0].Loss; math.IsNaN(f) || math.IsInf(f, 0) || (f0 > 0 && f > DivergenceFactor*f0) {
		r.stopped = true
		r.res.Diverged = true
		r.res.FinalLoss = f
		r.res.Time = t
		r.res.X = append([]float64(nil), x...)
	}
	if r.set.Recorder != nil {
		if err := r.set.Recorder.Record(rec); err != nil {
			return fmt.Errorf("recorder: %w", err)
		}
	}
	return nil
}

// step applies the optimizer's update with gradient g to xs, block s of
// the run's point, and tells the tracker.
func (r *run) step(xs, g []float64, s int) { r.opt.step(xs, g, 0, s, 1, 1) }
