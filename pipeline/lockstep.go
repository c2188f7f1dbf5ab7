package pipeline

import (
	"errors"
	"fmt"
	"math/bits"
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
// (_simulate_comms_compute, docs/reference.md §3) and returns its step count.
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
// are ignored. As in Lower, "previous" and "next" stage are those of the
// microbatch's route when the table has Routes (Chimera): a RECV_F waits
// for the SEND_F of the stage before it on the route, a RECV_B for the
// SEND_B of the stage after it, and a RECV at the route's end for a SEND
// that never comes.
//
// PyTorch's simulator rejects UNSHARD, RESHARD, REDUCE_GRAD and
// OVERLAP_F_B; Lockstep runs the first three at once (they wait for no
// other rank) and an OVERLAP_F_B when both its forward and its backward are
// ready.
func Lockstep(t *Table) (steps int, err error) {
	ls, err := runLockstep(t)
	if err != nil {
		return 0, err
	}
	for _, at := range ls.steps {
		if n := len(at); n > 0 {
			steps = max(steps, at[n-1]+1)
		}
	}
	return steps, nil
}

// LockstepSchedule is Lockstep returning the simulated grid: column c of
// row r is what rank r runs at step c, a bubble when it waits. Rows end
// when the rank has run its last action. t is not changed.
func LockstepSchedule(t *Table) (*Table, error) {
	ls, err := runLockstep(t)
	if err != nil {
		return nil, err
	}
	return withRows(t, layOut(t.Rows, ls.steps)), nil
}

// runLockstep checks t and steps it to the end.
//
// It visits only the ranks that may run. A rank whose head is not ready
// waits on the rank that must run what it needs (waitsFor names it) and is
// looked at again only after that rank has run something: readiness never
// goes back, since what has run stays run. A woken rank is looked at later
// in the same pass when it comes after the rank that woke it, and in the
// next pass otherwise (the second pass of the step, if it has not run in
// this one), so the passes visit ranks in the order, and see the state,
// that visiting every rank in order would. The cost follows the actions,
// not steps × ranks.
func runLockstep(t *Table) (*lockstep, error) {
	if err := checkPlacement(t); err != nil {
		return nil, fmt.Errorf("pipeline: lockstep: %w", err)
	}
	if !t.HasComms() {
		if ranks := distinctRanks(t.Placement); ranks > 1 {
			return nil, fmt.Errorf("pipeline: lockstep: the table has no SEND/RECV actions but its stages span %d ranks: lower it first", ranks)
		}
	}
	ls := &lockstep{t: t, pending: make([][]Action, t.Ranks()), done: newActionSet(t), steps: make([][]int, t.Ranks())}
	remaining := 0
	ranks := t.Ranks()
	// The ranks to look at in this pass, in the step's second pass, and
	// in the next step.
	this, second, nextStep := newRankSet(ranks), newRankSet(ranks), newRankSet(ranks)
	for r, row := range t.Rows {
		ls.pending[r] = skipBubbles(row)
		n := len(row) - countBubbles(row)
		ls.steps[r] = make([]int, 0, n)
		remaining += n
		if n > 0 {
			this.add(r)
		}
	}
	waiters := make([][]int, ranks) // waiters[q]: ranks waiting for q to run something
	ranAt := make([]int, ranks)     // the last step each rank ran in
	for r := range ranAt {
		ranAt[r] = -1
	}
	for step := 0; remaining > 0; step++ {
		progress := false
		for pass := range 2 {
			this.each(func(r int) {
				if w, blocked := ls.blocker(ls.pending[r][0]); blocked {
					if w >= 0 {
						waiters[w] = append(waiters[w], r)
					}
					return
				}
				ls.run(r, step)
				ranAt[r] = step
				remaining--
				progress = true
				if len(ls.pending[r]) > 0 {
					nextStep.add(r) // its new head, next step
				}
				for _, p := range waiters[r] {
					switch {
					case ranAt[p] == step:
						nextStep.add(p)
					case p > r:
						this.add(p) // later in this pass
					case pass == 0:
						second.add(p)
					default:
						nextStep.add(p)
					}
				}
				waiters[r] = waiters[r][:0]
			})
			if !progress {
				return nil, ls.deadlock(step)
			}
			this, second = second, this
		}
		this, nextStep = nextStep, this
	}
	return ls, nil
}

// blocker returns, if a cannot run now, the rank that must run something
// first (-1 when no rank ever will), and blocked = true.
func (ls *lockstep) blocker(a Action) (rank int, blocked bool) {
	for _, sub := range subActions(a) {
		if w := ls.waitsFor(sub); w.n > 0 && !ls.anyRun(w) {
			return w.rank, true
		}
	}
	return 0, false
}

// rankSet is a set of ranks visited in increasing order; ranks added
// during a visit beyond the one visited are visited in the same walk.
type rankSet []uint64

func newRankSet(n int) rankSet { return make(rankSet, (n+63)/64) }

func (s rankSet) add(r int)    { s[r/64] |= 1 << (r % 64) }
func (s rankSet) remove(r int) { s[r/64] &^= 1 << (r % 64) }
func (s rankSet) clear()       { clear(s) }

// each removes and visits the ranks of s in increasing order.
func (s rankSet) each(visit func(r int)) {
	for w := range s {
		for s[w] != 0 {
			b := bits.TrailingZeros64(s[w])
			s[w] &^= 1 << b
			visit(w*64 + b)
		}
	}
}

// lockstep is the state of one run: each rank's actions still to run
// (bubbles skipped), the actions the ranks have run, and the step each ran
// in.
type lockstep struct {
	t       *Table
	pending [][]Action
	done    *actionSet
	steps   [][]int // steps[r][i]: the step of rank r's i-th action
}

// run pops and records the head of rank r's row, run at step.
func (ls *lockstep) run(r, step int) {
	a := ls.pending[r][0]
	ls.pending[r] = skipBubbles(ls.pending[r][1:])
	for _, sub := range subActions(a) {
		ls.done.add(sub)
	}
	ls.steps[r] = append(ls.steps[r], step)
}

// skipBubbles returns row from its first action on.
func skipBubbles(row []Action) []Action {
	for len(row) > 0 && row[0].IsBubble() {
		row = row[1:]
	}
	return row
}

// countBubbles counts the bubbles of a row.
func countBubbles(row []Action) int {
	n := 0
	for _, a := range row {
		if a.IsBubble() {
			n++
		}
	}
	return n
}

// ready reports whether every single action a stands for can run now.
func (ls *lockstep) ready(a Action) bool {
	for _, sub := range subActions(a) {
		if w := ls.waitsFor(sub); w.n > 0 && !ls.anyRun(w) {
			return false
		}
	}
	return true
}

// anyRun reports whether the rank w names has run one of its actions.
func (ls *lockstep) anyRun(w wait) bool {
	return w.rank >= 0 && ls.done.anyOn(ls.t, w.rank, w.actions[:w.n])
}

// wait is what a single action waits for: any one of n actions, run on
// rank (-1 for a rank that does not exist, which never runs anything).
type wait struct {
	actions [3]Action
	n       int
	rank    int
}

// waitsFor says what single action a waits for, as PyTorch's simulator
// looks: compute and SEND look at their own rank, a RECV at the rank of
// the peer stage, the previous (RECV_F) or next (RECV_B) stage along the
// microbatch's route. n is 0 when a waits for nothing.
func (ls *lockstep) waitsFor(a Action) wait {
	s, m := a.Stage, a.Microbatch
	own := ls.t.Placement[s]
	switch a.Kind {
	case Forward, Backward, BackwardInput:
		inputs, n := inputsOf(ls.t, a)
		return wait{inputs, n, own}
	case SendF:
		return wait{[3]Action{F(s, m)}, 1, own}
	case SendB:
		return wait{[3]Action{I(s, m), B(s, m)}, 2, own}
	case RecvF:
		prev, ok := ls.t.PrevStage(m, s)
		if !ok {
			return wait{[3]Action{Act(SendF, s-1, m)}, 1, -1}
		}
		return wait{[3]Action{Act(SendF, prev, m)}, 1, ls.t.Placement[prev]}
	case RecvB:
		next, ok := ls.t.NextStage(m, s)
		if !ok {
			return wait{[3]Action{Act(SendB, s+1, m)}, 1, -1}
		}
		return wait{[3]Action{Act(SendB, next, m)}, 1, ls.t.Placement[next]}
	}
	return wait{rank: own}
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
			if w := ls.waitsFor(sub); w.n > 0 && !ls.anyRun(w) {
				waits = append(waits, w.actions[:w.n]...)
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
