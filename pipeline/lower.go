package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// MergeIW merges every I followed by the W of the same stage and microbatch
// on the same rank into one full backward B, as PyTorch's _merge_bw does.
// Like _merge_bw it drops bubbles first, so an I and a W with only bubbles
// between them merge too, and the result has no bubbles. t is not changed.
func MergeIW(t *Table) *Table {
	out := withRows(t, make([][]Action, t.Ranks()))
	for r, row := range t.Rows {
		merged := make([]Action, 0, len(row))
		for _, a := range row {
			if a.IsBubble() {
				continue
			}
			if n := len(merged); n > 0 && a.Kind == BackwardWeight {
				if prev := merged[n-1]; prev.Kind == BackwardInput && prev.Stage == a.Stage && prev.Microbatch == a.Microbatch {
					merged[n-1] = B(a.Stage, a.Microbatch)
					continue
				}
			}
			merged = append(merged, a)
		}
		out.Rows[r] = merged
	}
	return out
}

// DropBubbles returns t without its bubbles: every rank's actions in order,
// back to back. PyTorch's runtime drops bubbles this way (in
// _add_unshard_reshard and _add_reduce_grad) before it lowers a loaded
// schedule, which changes the round in which Lower reaches each action.
// t is not changed.
func DropBubbles(t *Table) *Table {
	out := t.Clone()
	for r, row := range out.Rows {
		out.Rows[r] = slices.DeleteFunc(row, Action.IsBubble)
	}
	return out
}

// Lower turns a compute-only table into one with explicit communication, as
// PyTorch's _add_send_recv does (docs/reference.md §3). It visits the ranks in
// order, round after round, and on each visit takes the rank's next action if
// it is ready: an F on stage s > 0 once the rank holds sRECV_Fm or (s-1)Fm, an
// I or B on a stage before the last once the rank holds sRECV_Bm, (s+1)Im or
// (s+1)Bm, anything else at once. An F whose next stage lives on another rank
// is followed by sSEND_Fm, and (s+1)RECV_Fm is appended to that rank's list
// at once; an I or B whose previous stage lives on another rank likewise
// sends sSEND_Bm and appends (s-1)RECV_Bm. W never communicates. A bubble
// uses up its rank's visit in a round and is dropped, so bubbles change
// where RECVs land (DropBubbles first to lower as PyTorch's runtime does).
// A round in which no rank takes an action is an error naming the stuck
// ranks and the actions they wait for.
//
// In a table with Routes (Chimera), "first", "last", "next" and "previous"
// stage are those of the microbatch's route (RouteOf, NextStage,
// PrevStage): a microbatch enters at its route's first stage, leaves at its
// last, and never communicates with a stage off its route. Without Routes
// the route is every stage, which is PyTorch's rule above.
//
// The rounds are not stepped through: each action's round follows from
// the rounds of what it waits for (see lowering), and the output lists the
// actions in the order the rounds would visit them. The cost follows the
// actions, not rounds × ranks.
//
// The table must be compute only (no SEND or RECV yet), its placement must
// put every action's stage on the action's rank and, with Routes, every
// action's stage must lie on its microbatch's route. t is not changed.
func Lower(t *Table) (*Table, error) {
	lw, err := lowerRounds(t)
	if err != nil {
		return nil, err
	}
	out := withRows(t, carve(lw.size))
	for _, c := range lw.visitOrder() {
		r, a := c.rank, t.Rows[c.rank][c.index]
		out.Rows[r] = append(out.Rows[r], a)
		subs, n := singles(a)
		for _, sub := range subs[:n] {
			if send, recv, ok := commsOf(t, sub); ok {
				out.Rows[r] = append(out.Rows[r], send)
				peer := t.Placement[recv.Stage]
				out.Rows[peer] = append(out.Rows[peer], recv)
			}
		}
	}
	return out, nil
}

// lowerRounds checks that Lower can lower t and finds the round of every
// cell.
func lowerRounds(t *Table) (*lowering, error) {
	if r, i, ok := t.firstComm(); ok {
		return nil, fmt.Errorf("pipeline: lower: the table already has SEND/RECV actions (rank %d cell %d: %s)", r, i, t.Rows[r][i])
	}
	if err := checkPlacement(t); err != nil {
		return nil, fmt.Errorf("pipeline: lower: %w", err)
	}
	lw := newLowering(t)
	if err := lw.run(); err != nil {
		return nil, err
	}
	return lw, nil
}

// carve returns empty rows of the given capacities cut from one array.
func carve(size []int) [][]Action {
	total := 0
	for _, n := range size {
		total += n
	}
	buf := make([]Action, total)
	rows := make([][]Action, len(size))
	for r, n := range size {
		rows[r], buf = buf[:0:n], buf[n:]
	}
	return rows
}

// inputsOf lists the n actions any one of which provides a's input, n = 0
// when a needs none: F on a stage after its route's first waits for its
// RECV_F or the local previous-stage F; I and B on a stage before its
// route's last wait for their RECV_B or the local next-stage I or B. The
// list is an array so that the readiness checks of Lower and Lockstep do
// not allocate.
func inputsOf(t *Table, a Action) (inputs [3]Action, n int) {
	s, m := a.Stage, a.Microbatch
	switch a.Kind {
	case Forward:
		if prev, ok := t.PrevStage(m, s); ok {
			return [3]Action{Act(RecvF, s, m), F(prev, m)}, 2
		}
	case BackwardInput, Backward:
		if next, ok := t.NextStage(m, s); ok {
			return [3]Action{Act(RecvB, s, m), I(next, m), B(next, m)}, 3
		}
	}
	return inputs, 0
}

// commsOf returns the SEND that follows compute action a on its rank and the
// RECV it puts on the peer's rank, if a's output crosses ranks along its
// microbatch's route.
func commsOf(t *Table, a Action) (send, recv Action, ok bool) {
	s, m := a.Stage, a.Microbatch
	switch a.Kind {
	case Forward:
		if next, on := t.NextStage(m, s); on && t.Placement[next] != t.Placement[s] {
			return Act(SendF, s, m), Act(RecvF, next, m), true
		}
	case BackwardInput, Backward:
		if prev, on := t.PrevStage(m, s); on && t.Placement[prev] != t.Placement[s] {
			return Act(SendB, s, m), Act(RecvB, prev, m), true
		}
	}
	return Action{}, Action{}, false
}

// lowerStuck describes a round of Lower in which no rank could move. It
// wraps ErrMalformed: such a table cannot be ordered as PyTorch lowers it.
func lowerStuck(t *Table, pending [][]Action) error {
	var parts []string
	for r, row := range pending {
		if len(row) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("rank %d at %s waits for %s", r, row[0], describeInputs(t, row[0])))
	}
	return fmt.Errorf("pipeline: lower: no rank can move: %s: %w", strings.Join(parts, "; "), ErrMalformed)
}

// describeInputs names what a compute action (or each part of an
// OVERLAP_F_B) waits for.
func describeInputs(t *Table, a Action) string {
	var parts []string
	for _, sub := range subActions(a) {
		inputs, n := inputsOf(t, sub)
		var alts []string
		for _, in := range inputs[:n] {
			alts = append(alts, in.String())
		}
		if len(alts) > 0 {
			parts = append(parts, strings.Join(alts, " or "))
		}
	}
	return strings.Join(parts, ", and ")
}

// checkPlacement makes sure every action names a stage of the placement and
// sits on the rank the placement gives that stage, so that lowering and
// simulation can index by stage safely. A table with Routes must also have
// every microbatch on a route and every action's stage on its
// microbatch's route.
func checkPlacement(t *Table) error {
	if err := t.validatePlacement(); err != nil {
		return err
	}
	if err := t.validateRoutes(); err != nil {
		return err
	}
	routed := t.Routes != nil || t.MicrobatchRoute != nil
	for r, row := range t.Rows {
		for i, a := range row {
			for _, sub := range subActions(a) {
				if sub.Stage < 0 || sub.Stage >= t.Stages() {
					return fmt.Errorf("rank %d action %d (%s): stage %d is not among the %d stages", r, i, a, sub.Stage, t.Stages())
				}
				if t.Placement[sub.Stage] != r {
					return fmt.Errorf("rank %d action %d (%s): stage %d is placed on rank %d", r, i, a, sub.Stage, t.Placement[sub.Stage])
				}
				if routed {
					if err := t.validateAction(r, sub); err != nil {
						return fmt.Errorf("rank %d action %d (%s): %w", r, i, a, err)
					}
				}
			}
		}
	}
	return nil
}

// withRows returns a copy of t with the given rows and its own placement.
func withRows(t *Table, rows [][]Action) *Table {
	c := *t
	c.Rows = rows
	c.Placement = slices.Clone(t.Placement)
	return &c
}
