package pipeline

import (
	"errors"
	"fmt"
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

// runLockstep checks t and finds the step of every action.
//
// The steps are not stepped through. Number the look at rank r in pass p
// (0 or 1) of step k by its key (2k + p)·R + r, R ranks: the looks go by
// rank within a pass, the passes of a step one after the other, steps in
// order. An action runs at the first look after the step of its rank's
// previous action that comes after the looks in which what it waits for ran
// (a look in pass 1 of a step is one at a rank that did not run in pass 0,
// since its previous action ran in an earlier step). Compute and SEND wait
// for actions of their own rank, earlier in its row; a RECV waits for the
// SEND of one other rank. So each step follows from steps already found,
// whatever order the ranks are gone through in: a rank goes along its row
// until the SEND its RECV needs has not run, and waits until the sending
// rank runs it. The step at which the stepping finds no rank to run is
// the one after the last action that runs. The cost follows the actions,
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
	ranks := t.Ranks()
	ls := &lockstep{t: t, pending: make([][]Action, ranks), done: newActionTimes(t), steps: make([][]int, ranks),
		waitOn: make([]int, ranks), flow: newMessageFlow(t)}
	work := make([]int, 0, ranks)
	remaining := 0
	for r, row := range t.Rows {
		ls.pending[r] = skipBubbles(row)
		n := len(row) - countBubbles(row)
		ls.steps[r] = make([]int, 0, n)
		remaining += n
		ls.waitOn[r] = -1
		work = append(work, ranks-1-r)
	}
	lastStep := -1
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		for len(ls.pending[r]) > 0 {
			look, ok := ls.earliest(r)
			if !ok {
				break
			}
			a := ls.pending[r][0]
			ls.run(r, look)
			lastStep = max(lastStep, look/2)
			remaining--
			if w, ok := ls.woken(a); ok {
				work = append(work, w)
			}
		}
	}
	if remaining > 0 {
		return nil, ls.deadlock(lastStep + 1)
	}
	return ls, nil
}

// lockstepKey numbers the look at rank r in pass p of step k, given look
// = 2k + p: (2k + p)·R + r.
func lockstepKey(look, r, ranks int) int64 { return int64(look)*int64(ranks) + int64(r) }

// earliest returns the look (2·step + pass) at which rank r runs its head,
// or false, with waitOn set when another rank's SEND would let it, when it
// cannot run yet.
func (ls *lockstep) earliest(r int) (int, bool) {
	ranks := len(ls.pending)
	look := 0
	if n := len(ls.steps[r]); n > 0 {
		look = 2 * (ls.steps[r][n-1] + 1)
	}
	if a := &ls.pending[r][0]; a.Kind != OverlapFB {
		key, waits, ok := ls.awaited(r, a)
		if !waits {
			return look, true
		}
		if !ok {
			return 0, false
		}
		return max(look, roundAfter(key, r, ranks)), true
	}
	for _, sub := range subActions(ls.pending[r][0]) {
		w := ls.waitsFor(sub)
		if w.n == 0 {
			continue
		}
		key, ok := int64(0), false
		if w.rank >= 0 {
			key, ok = ls.done.earliestOn(ls.t, w.rank, w.actions[:w.n])
		}
		if !ok {
			if w.rank >= 0 && w.rank != r {
				ls.waitOn[r] = ls.done.slot(w.actions[0])
			}
			return 0, false
		}
		look = max(look, roundAfter(key, r, ranks))
	}
	return look, true
}

// awaited is waitsFor and earliestOn for a single action a at the head of
// rank r, by slot arithmetic: whether a waits for anything and, if so, the
// earliest key at which one of the actions it waits for ran (ok) or, when
// none has, ok = false with waitOn set if another rank's SEND is awaited.
func (ls *lockstep) awaited(r int, a *Action) (key int64, waits, ok bool) {
	x := ls.done
	mb, known := x.mbs.of(a.Microbatch)
	if !known {
		// A microbatch no action names: nothing of it has run.
		w := ls.waitsFor(*a)
		return 0, w.n > 0, false
	}
	first, last := ls.flow.route(mb)
	s, stages, place := a.Stage, x.stages, ls.t.Placement
	// at returns the key+1 of the action of kind k on stage st, 0 if it
	// has not run.
	at := func(k Kind, st int) int64 { return x.at[(k.slot()*stages+st)*x.mbs.n+mb] }
	var alts [3]int64
	n := 0
	switch a.Kind {
	case Forward:
		if s <= first || s > last {
			return 0, false, false
		}
		alts[0], n = at(RecvF, s), 1
		if place[s-1] == r {
			alts[1], n = at(Forward, s-1), 2
		}
	case BackwardInput, Backward:
		if s < first || s >= last {
			return 0, false, false
		}
		alts[0], n = at(RecvB, s), 1
		if place[s+1] == r {
			alts[1], alts[2], n = at(BackwardInput, s+1), at(Backward, s+1), 3
		}
	case SendF:
		alts[0], n = at(Forward, s), 1
	case SendB:
		alts[0], alts[1], n = at(BackwardInput, s), at(Backward, s), 2
	case RecvF, RecvB:
		from := s - 1
		kind := SendF
		if a.Kind == RecvB {
			from, kind = s+1, SendB
		}
		if (a.Kind == RecvF && (s <= first || s > last)) || (a.Kind == RecvB && (s < first || s >= last)) {
			return 0, true, false // at its route's end: a SEND that never comes
		}
		if t := at(kind, from); t != 0 {
			return t - 1, true, true
		}
		if place[from] != r {
			ls.waitOn[r] = (kind.slot()*stages+from)*x.mbs.n + mb
		}
		return 0, true, false
	default:
		return 0, false, false
	}
	best := int64(0)
	for _, t := range alts[:n] {
		if t != 0 && (best == 0 || t < best) {
			best = t
		}
	}
	return best - 1, true, best != 0
}

// woken returns the rank waiting for action a, which has just run, if
// any: the RECV of a SEND is on the rank of the peer stage.
func (ls *lockstep) woken(a Action) (int, bool) {
	var peer int
	var ok bool
	switch a.Kind {
	case SendF:
		peer, ok = ls.t.NextStage(a.Microbatch, a.Stage)
	case SendB:
		peer, ok = ls.t.PrevStage(a.Microbatch, a.Stage)
	}
	if !ok {
		return 0, false
	}
	w := ls.t.Placement[peer]
	if slot := ls.done.slot(a); ls.waitOn[w] < 0 || ls.waitOn[w] != slot {
		return 0, false
	}
	ls.waitOn[w] = -1
	return w, true
}

// lockstep is the state of one run: each rank's actions still to run
// (bubbles skipped), when the ranks ran what they ran (as look keys), the
// step each action ran in, and the SEND a rank waits for.
type lockstep struct {
	t       *Table
	pending [][]Action
	done    *actionTimes
	steps   [][]int     // steps[r][i]: the step of rank r's i-th action
	waitOn  []int       // per rank, the slot of the SEND it waits for, or -1
	flow    messageFlow // the microbatches' routes
}

// run pops and records the head of rank r's row, run at look
// (2·step + pass).
func (ls *lockstep) run(r, look int) {
	a := ls.pending[r][0]
	ls.pending[r] = skipBubbles(ls.pending[r][1:])
	key := lockstepKey(look, r, len(ls.pending))
	if a.Kind != OverlapFB {
		ls.done.set(a, key)
	} else {
		for _, sub := range subActions(a) {
			ls.done.set(sub, key)
		}
	}
	ls.steps[r] = append(ls.steps[r], look/2)
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

// anyRun reports whether the rank w names has run one of its actions.
func (ls *lockstep) anyRun(w wait) bool {
	if w.rank < 0 {
		return false
	}
	_, ok := ls.done.earliestOn(ls.t, w.rank, w.actions[:w.n])
	return ok
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
