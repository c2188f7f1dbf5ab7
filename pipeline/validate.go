package pipeline

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("pipeline: invalid table")

// invalidError is one reason a table is invalid; its text says where.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// cellError names the cell of an invalid action: its rank, its position in
// the row (counted from 0, as grid columns are) and the action.
func cellError(r, i int, a Action, format string, args ...any) error {
	return &invalidCell{rank: r, cell: i, action: a, reason: fmt.Sprintf(format, args...)}
}

// invalidCell is a Validate error at one cell.
type invalidCell struct {
	rank, cell int
	action     Action
	reason     string
}

func (e *invalidCell) Error() string {
	return fmt.Sprintf("pipeline: rank %d cell %d (%s): %s", e.rank, e.cell, e.action, e.reason)
}
func (e *invalidCell) Unwrap() error { return ErrInvalid }

// ValidateFile is Validate for a table read from the schedule file file
// (ReadCSV), whose lines are its ranks and cells its cells: an invalid
// action is named as the file holds it, a *ParseError "FILE:LINE: cell N:
// ACTION: reason" with line and cell counted from 1, as ValidateCSV and
// pipelab check name them. It matches ErrInvalid (and ErrMalformed).
func (t *Table) ValidateFile(file string) error {
	err := t.Validate()
	var c *invalidCell
	if errors.As(err, &c) {
		return &invalidInFile{ParseError{File: file, Line: c.rank + 1, Cell: c.cell + 1, Reason: c.action.String() + ": " + c.reason}}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// invalidInFile is ValidateFile's error at a cell: a ParseError that also
// matches ErrInvalid.
type invalidInFile struct{ ParseError }

func (e *invalidInFile) Is(target error) bool { return target == ErrInvalid }

// As gives the ParseError.
func (e *invalidInFile) As(target any) bool {
	if p, ok := target.(**ParseError); ok {
		*p = &e.ParseError
		return true
	}
	return false
}

// Validate checks that t is a well-formed schedule and returns the first
// problem found, wrapping ErrInvalid:
//   - the placement names existing ranks, and every action sits on the rank
//     that holds its stage;
//   - every action names an existing stage and, where it has one, an
//     existing microbatch whose route (RouteOf) passes through that stage;
//   - on each stage, a microbatch's F comes before its B or I, and its I
//     before its W;
//   - every microbatch is forwarded exactly once on every stage of its route
//     and backwarded exactly once there, either by one B or by one I and one
//     W, never both.
//
// A cell-level error names the rank, the cell (counted from 0) and the
// action: "pipeline: rank 2 cell 7 (1B3): ...". A count error that belongs
// to no cell names the stage and the microbatch. Communication and other
// non-compute actions are checked for stage, microbatch and rank only, so a
// lowered table validates too.
func (t *Table) Validate() error {
	if err := t.validateShape(); err != nil {
		return err
	}
	c := newComputeLog(t.Stages(), t.Microbatches)
	for r, row := range t.Rows {
		for i := range row {
			a := &row[i]
			switch {
			case a.Kind == Bubble:
				continue
			case int(a.Kind) >= len(kindNames):
				return cellError(r, i, *a, "unknown action kind %d", uint8(a.Kind))
			case a.Kind != OverlapFB && t.validSingle(c, r, i, a):
				continue
			}
			for _, sub := range subActions(*a) {
				if err := t.validateAction(r, sub); err != nil {
					return cellError(r, i, *a, "%v", err)
				}
				if sub.Kind.IsCompute() {
					if err := c.record(sub, i); err != nil {
						return cellError(r, i, *a, "%v", err)
					}
				}
			}
		}
	}
	return c.complete(t)
}

// validSingle is what Validate checks of a single action a at cell i of
// rank r's row, validateAction and record, for the common case where
// nothing is wrong: it records a and reports true when both would pass,
// and otherwise changes nothing and reports false, so that Validate runs
// them to say what is wrong. It reads no more than a walk of the table
// does, and allocates nothing.
func (t *Table) validSingle(c *computeLog, r, i int, a *Action) bool {
	s, m := a.Stage, a.Microbatch
	if s < 0 || s >= len(t.Placement) || t.Placement[s] != r {
		return false
	}
	if !a.Kind.HasMicrobatch() {
		return true
	}
	if m < 0 || m >= t.Microbatches {
		return false
	}
	if t.Routes != nil {
		if rt := t.Routes[t.MicrobatchRoute[m]]; s < rt.First || s > rt.Last {
			return false
		}
	}
	slot := a.Kind.slot()
	if slot < 0 || slot >= computeKinds {
		return true // not a compute: nothing to record
	}
	k := s*c.microbatches + m
	f, b, in, w := c.cells[0], c.cells[1], c.cells[2], c.cells[3]
	switch a.Kind {
	case Forward:
		if f[k] != 0 {
			return false
		}
	case Backward:
		if b[k] != 0 || f[k] == 0 || in[k] != 0 || w[k] != 0 {
			return false
		}
	case BackwardInput:
		if in[k] != 0 || f[k] == 0 || b[k] != 0 {
			return false
		}
	case BackwardWeight:
		if w[k] != 0 || in[k] == 0 {
			return false
		}
	}
	c.cells[slot][k] = int32(i + 1)
	return true
}

// validateShape checks the table-level fields before any cell.
func (t *Table) validateShape() error {
	switch {
	case t.Stages() == 0:
		return invalidf("pipeline: the table has no stages (empty placement)")
	case t.Microbatches < 1:
		return invalidf("pipeline: the table has %d microbatches, want at least 1", t.Microbatches)
	}
	if err := t.validatePlacement(); err != nil {
		return invalidf("pipeline: %v", err)
	}
	if err := t.validateRoutes(); err != nil {
		return invalidf("pipeline: %v", err)
	}
	return nil
}

// validatePlacement checks that the placement names existing ranks. Like
// validateRoutes, its error has no package prefix.
func (t *Table) validatePlacement() error {
	for s, r := range t.Placement {
		if r < 0 || r >= t.Ranks() {
			return fmt.Errorf("placement puts stage %d on rank %d, but the table has %d ranks", s, r, t.Ranks())
		}
	}
	return nil
}

// validateRoutes checks Routes and MicrobatchRoute: every route a run of
// existing stages, and every microbatch on an existing route. Its errors
// say what is wrong without a package prefix, for Validate and Lower to wrap.
func (t *Table) validateRoutes() error {
	if t.Routes == nil && t.MicrobatchRoute == nil {
		return nil
	}
	for k, rt := range t.Routes {
		if rt.First < 0 || rt.First > rt.Last || rt.Last >= t.Stages() {
			return fmt.Errorf("route %d runs from stage %d to stage %d, outside stages 0..%d", k, rt.First, rt.Last, t.Stages()-1)
		}
	}
	if len(t.MicrobatchRoute) != t.Microbatches {
		return fmt.Errorf("%d microbatch routes for %d microbatches", len(t.MicrobatchRoute), t.Microbatches)
	}
	for m, k := range t.MicrobatchRoute {
		if k < 0 || k >= len(t.Routes) {
			return fmt.Errorf("microbatch %d takes route %d of %d", m, k, len(t.Routes))
		}
	}
	return nil
}

// validateAction checks that a single action on rank r names an existing
// stage held by r and, if it has one, an existing microbatch routed
// through that stage.
func (t *Table) validateAction(r int, a Action) error {
	if a.Stage < 0 || a.Stage >= t.Stages() {
		return fmt.Errorf("stage %d does not exist (the table has %d stages)", a.Stage, t.Stages())
	}
	if owner := t.Placement[a.Stage]; owner != r {
		return fmt.Errorf("stage %d is placed on rank %d", a.Stage, owner)
	}
	if !a.Kind.HasMicrobatch() {
		return nil
	}
	if a.Microbatch < 0 || a.Microbatch >= t.Microbatches {
		return fmt.Errorf("microbatch %d does not exist (the table has %d microbatches)", a.Microbatch, t.Microbatches)
	}
	if rt := t.RouteOf(a.Microbatch); a.Stage < rt.First || a.Stage > rt.Last {
		return fmt.Errorf("microbatch %d flows through stages %d..%d only", a.Microbatch, rt.First, rt.Last)
	}
	return nil
}

// computeLog records, for every stage and microbatch, the cell of each
// compute kind seen so far. A stage lives on one rank, so the cells of one
// stage are comparable positions in one row.
type computeLog struct {
	microbatches int
	// cells holds, by Kind.slot and then stage*microbatches + microbatch,
	// the cell plus one, 0 for none: a fresh log is all zeros.
	cells [computeKinds][]int32
}

func newComputeLog(stages, microbatches int) *computeLog {
	c := &computeLog{microbatches: microbatches}
	for k := range c.cells {
		c.cells[k] = make([]int32, stages*microbatches)
	}
	return c
}

// get returns the cell of the action of kind k on stage s and microbatch
// m, or -1.
func (c *computeLog) get(k Kind, s, m int) int { return int(c.cells[k.slot()][s*c.microbatches+m]) - 1 }

// set records cell i for the action of kind k on stage s and microbatch m.
func (c *computeLog) set(k Kind, s, m, i int) { c.cells[k.slot()][s*c.microbatches+m] = int32(i + 1) }

// record notes a single compute action at cell i and checks its order
// against what its stage has run so far.
func (c *computeLog) record(a Action, i int) error {
	s, m := a.Stage, a.Microbatch
	if prev := c.get(a.Kind, s, m); prev >= 0 {
		return fmt.Errorf("microbatch %d already has a %s on stage %d (cell %d)", a.Microbatch, a.Kind, a.Stage, prev)
	}
	seen := func(k Kind) bool { return c.get(k, s, m) >= 0 }
	switch a.Kind {
	case Backward, BackwardInput:
		if !seen(Forward) {
			return fmt.Errorf("backward of microbatch %d on stage %d before its forward", a.Microbatch, a.Stage)
		}
		if a.Kind == Backward && (seen(BackwardInput) || seen(BackwardWeight)) ||
			a.Kind == BackwardInput && seen(Backward) {
			return fmt.Errorf("microbatch %d on stage %d has both a full backward B and a split one (I, W)", a.Microbatch, a.Stage)
		}
	case BackwardWeight:
		if !seen(BackwardInput) {
			return fmt.Errorf("weight gradient W of microbatch %d on stage %d before its input gradient I", a.Microbatch, a.Stage)
		}
	}
	c.set(a.Kind, s, m, i)
	return nil
}

// complete checks that every microbatch was forwarded and backwarded on
// every stage of its route.
func (c *computeLog) complete(t *Table) error {
	f, b, in, w := c.cells[0], c.cells[1], c.cells[2], c.cells[3]
	for m := range t.Microbatches {
		rt := t.RouteOf(m)
		for s := rt.First; s <= rt.Last; s++ {
			if k := s*c.microbatches + m; f[k] != 0 && (b[k] != 0 || in[k] != 0) && (in[k] == 0 || w[k] != 0) {
				continue
			}
			has := func(k Kind) bool { return c.get(k, s, m) >= 0 }
			switch {
			case !has(Forward):
				return invalidf("pipeline: stage %d microbatch %d: never forwarded (no %s)", s, m, F(s, m))
			case !has(Backward) && !has(BackwardInput):
				return invalidf("pipeline: stage %d microbatch %d: never backwarded (no %s, nor %s and %s)", s, m, B(s, m), I(s, m), W(s, m))
			case has(BackwardInput) && !has(BackwardWeight):
				return invalidf("pipeline: stage %d microbatch %d: %s without its weight gradient %s", s, m, I(s, m), W(s, m))
			}
		}
	}
	return nil
}
