package sim

import (
	"context"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// LockstepWant says how much of the lockstep level Compare computes.
type LockstepWant uint8

const (
	// NoLockstep skips the lockstep level (the schedules measure under a
	// cost model other than unit time: the grid has no other clock).
	NoLockstep LockstepWant = iota
	// LockstepSteps computes its step count only.
	LockstepSteps
	// LockstepGrid computes its step count and its grid.
	LockstepGrid
)

// Levels is one family's table priced at the three levels of the
// tabular-schedule comparison (Barley et al., arXiv 2605.24006).
type Levels struct {
	// Formula is the family's closed form, nil where none is known;
	// FormulaPeak its peak activations in activations of one rank's share
	// of the model (M_B), as the timelines' peaks are shown.
	Formula     *Estimate
	FormulaPeak float64
	// Steps is the step count of PyTorch's lockstep check (TorchLockstep)
	// and Grid its grid when LockstepGrid was asked for. LockstepErr says
	// why the table has no lockstep level (pipeline.ErrMalformed where
	// PyTorch's lowering cannot order it); each caller decides what that
	// means. With NoLockstep all three are zero.
	Steps       int
	Grid        *pipeline.Table
	LockstepErr error
	// Timeline is the event simulation under the cost model, nil when it
	// failed.
	Timeline *Timeline
}

// Compare prices t, the table of family generated at shape sh, at the
// three levels: the closed form with share (one rank's share of the model)
// at sh with the table's own chunks per rank, PyTorch's lockstep check as
// want asks, and Simulate under model with the default options. "pipelab
// compare" and the schedules measure both price through it. The error is
// the simulation's; the formula and lockstep levels are filled in even
// then.
func Compare(family string, t *pipeline.Table, sh pipeline.Shape, model cost.Model, share cost.Stage, want LockstepWant) (Levels, error) {
	return CompareContext(context.Background(), family, t, sh, model, share, want)
}

// CompareContext is Compare ended early, with ctx's error, once ctx is
// done.
func CompareContext(ctx context.Context, family string, t *pipeline.Table, sh pipeline.Shape, model cost.Model, share cost.Stage, want LockstepWant) (Levels, error) {
	var lv Levels
	if want != NoLockstep {
		lv.Grid, lv.Steps, lv.LockstepErr = TorchLockstep(t, want == LockstepGrid)
	}
	sh.Chunks = cost.ChunksPerRank(t)
	if est, ok := ClosedForm(family, sh, share); ok {
		lv.Formula, lv.FormulaPeak = &est, est.PeakActivations*cost.StageShare(t)
	}
	if err := ctx.Err(); err != nil {
		return lv, err
	}
	tl, err := Simulate(t, model, Options{Context: ctx})
	if err != nil {
		return lv, err
	}
	lv.Timeline = tl
	return lv, nil
}

// TorchLockstep runs PyTorch's unit-time check: on t as it is when it has
// SEND/RECV, after dropping bubbles and lowering it otherwise (I and W kept
// apart, as PyTorch's runtime lowers a loaded schedule). It returns the
// simulated grid too when grid is true (FromGrid times it); without, the
// lowered table is not built (pipeline.LowerLockstep).
func TorchLockstep(t *pipeline.Table, grid bool) (*pipeline.Table, int, error) {
	comms := t
	if !t.HasComms() {
		if !grid {
			steps, err := pipeline.LowerLockstep(pipeline.DropBubbles(t))
			return nil, steps, err
		}
		var err error
		if comms, err = pipeline.Lower(pipeline.DropBubbles(t)); err != nil {
			return nil, 0, err
		}
	}
	if !grid {
		steps, err := pipeline.Lockstep(comms)
		return nil, steps, err
	}
	g, err := pipeline.LockstepSchedule(comms)
	if err != nil {
		return nil, 0, err
	}
	steps := 0
	for _, row := range g.Rows {
		steps = max(steps, len(row))
	}
	return g, steps, nil
}
