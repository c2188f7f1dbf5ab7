package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrDeadlock is wrapped by every error that reports a schedule whose ranks
// wait on each other forever.
var ErrDeadlock = errors.New("deadlock")

// Blocked is one rank that cannot move: the action at the head of its row
// and the actions any one of which would let it run.
type Blocked struct {
	Rank     int
	Action   Action
	WaitsFor []Action
}

// DeadlockError reports the step at which no rank could run, and why.
type DeadlockError struct {
	Step    int
	Blocked []Blocked
}

func (e *DeadlockError) Error() string {
	parts := make([]string, len(e.Blocked))
	for i, b := range e.Blocked {
		waits := make([]string, len(b.WaitsFor))
		for j, w := range b.WaitsFor {
			waits[j] = w.String()
		}
		parts[i] = fmt.Sprintf("rank %d at %s waits for %s", b.Rank, b.Action, strings.Join(waits, " or "))
	}
	return fmt.Sprintf("pipeline: deadlock at step %d: %s", e.Step, strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, ErrDeadlock) true.
func (e *DeadlockError) Unwrap() error { return ErrDeadlock }

// Lockstep runs PyTorch's unit-time check of a schedule with communication
// (_simulate_comms_compute, REFERENCE.md §3) and returns its step count.
// Lower a compute-only table first; a table without SEND/RECV whose stages
// span several ranks is refused. A step in which no rank can run is a
// *DeadlockError wrapping ErrDeadlock.
//
// Every step, the ranks in order run the head of their row if it is ready:
// F after its RECV_F or the local previous-stage F, I or B after their
// RECV_B or the local next-stage I or B, W at once, SEND after the compute
// it sends, RECV after the peer's SEND, including one the peer ran earlier
// in the same step. A second pass then lets every rank that stayed idle run
// if an action later in the first pass unblocked it. Bubbles in the input
// are ignored.
//
// PyTorch's simulator rejects UNSHARD, RESHARD, REDUCE_GRAD and
// OVERLAP_F_B; Lockstep runs the first three at once (they wait for no
// other rank) and an OVERLAP_F_B when both its forward and its backward are
// ready.
func Lockstep(t *Table) (steps int, err error) {
	g, err := LockstepSchedule(t)
	if err != nil {
		return 0, err
	}
	for _, row := range g.Rows {
		steps = max(steps, len(row))
	}
	return steps, nil
}

// LockstepSchedule is Lockstep returning the simulated grid: column c of
// row r is what rank r runs at step c, a bubble when it waits. Rows end
// when the rank has run its last action. t is not changed.
func LockstepSchedule(t *Table) (*Table, error) {
	if err := checkPlacement(t); err != nil {
		return nil, fmt.Errorf("pipeline: lockstep: %w", err)
	}
	if !t.HasComms() {
		if ranks := distinctRanks(t.Placement); ranks > 1 {
			return nil, fmt.Errorf("pipeline: lockstep: the table has no SEND/RECV actions but its stages span %d ranks: lower it first", ranks)
		}
	}
	ls := &lockstep{t: t, pending: make([][]Action, t.Ranks()), done: make([]map[Action]bool, t.Ranks())}
	grid := withRows(t, make([][]Action, t.Ranks()))
	remaining := 0
	for r, row := range t.Rows {
		ls.pending[r] = slices.DeleteFunc(slices.Clone(row), Action.IsBubble)
		remaining += len(ls.pending[r])
		ls.done[r] = make(map[Action]bool, len(ls.pending[r]))
	}
	ran := make([]bool, t.Ranks())
	for step := 0; remaining > 0; step++ {
		progress := false
		for r := range ls.pending {
			ran[r] = false
			if len(ls.pending[r]) == 0 {
				continue
			}
			if ls.ready(ls.pending[r][0]) {
				grid.Rows[r] = append(grid.Rows[r], ls.run(r))
				ran[r], progress = true, true
				remaining--
			} else {
				grid.Rows[r] = append(grid.Rows[r], Action{})
			}
		}
		if !progress {
			return nil, ls.deadlock(step)
		}
		// An idle rank may have been unblocked by a rank after it.
		for r := range ls.pending {
			if ran[r] || len(ls.pending[r]) == 0 || !ls.ready(ls.pending[r][0]) {
				continue
			}
			grid.Rows[r][len(grid.Rows[r])-1] = ls.run(r)
			remaining--
		}
	}
	return grid, nil
}

// lockstep is the state of one run: each rank's actions still to run and
// the actions it has run.
type lockstep struct {
	t       *Table
	pending [][]Action
	done    []map[Action]bool
}

// run pops and records the head of rank r's row.
func (ls *lockstep) run(r int) Action {
	a := ls.pending[r][0]
	ls.pending[r] = ls.pending[r][1:]
	ls.done[r][a] = true
	for _, sub := range subActions(a) {
		ls.done[r][sub] = true
	}
	return a
}

// ready reports whether every single action a stands for can run now.
func (ls *lockstep) ready(a Action) bool {
	for _, sub := range subActions(a) {
		if waits, where := ls.waitsFor(sub); waits != nil && !ls.anyRun(waits, where) {
			return false
		}
	}
	return true
}

// anyRun reports whether rank where has run one of the actions; where is -1
// for a rank that does not exist.
func (ls *lockstep) anyRun(actions []Action, where int) bool {
	if where < 0 {
		return false
	}
	return slices.ContainsFunc(actions, func(a Action) bool { return ls.done[where][a] })
}

// waitsFor lists the actions any one of which lets single action a run, and
// the rank that must have run it, as PyTorch's simulator looks: compute and
// SEND look at their own rank, a RECV at the rank of the peer stage. It
// returns nil when a waits for nothing.
func (ls *lockstep) waitsFor(a Action) ([]Action, int) {
	s, m := a.Stage, a.Microbatch
	own := ls.t.Placement[s]
	switch a.Kind {
	case Forward, Backward, BackwardInput:
		return inputsOf(ls.t, a), own
	case SendF:
		return []Action{F(s, m)}, own
	case SendB:
		return []Action{I(s, m), B(s, m)}, own
	case RecvF:
		return []Action{Act(SendF, s-1, m)}, ls.rankOf(s - 1)
	case RecvB:
		return []Action{Act(SendB, s+1, m)}, ls.rankOf(s + 1)
	}
	return nil, own
}

// rankOf returns the rank holding stage s, or -1 when there is no stage s.
func (ls *lockstep) rankOf(s int) int {
	if s < 0 || s >= ls.t.Stages() {
		return -1
	}
	return ls.t.Placement[s]
}

// deadlock describes every rank still waiting at a step where none ran.
func (ls *lockstep) deadlock(step int) error {
	e := &DeadlockError{Step: step}
	for r, row := range ls.pending {
		if len(row) == 0 {
			continue
		}
		var waits []Action
		for _, sub := range subActions(row[0]) {
			if w, where := ls.waitsFor(sub); w != nil && !ls.anyRun(w, where) {
				waits = append(waits, w...)
			}
		}
		e.Blocked = append(e.Blocked, Blocked{Rank: r, Action: row[0], WaitsFor: waits})
	}
	return e
}

// distinctRanks counts the ranks a placement uses.
func distinctRanks(placement []int) int {
	seen := map[int]bool{}
	for _, r := range placement {
		seen[r] = true
	}
	return len(seen)
}
