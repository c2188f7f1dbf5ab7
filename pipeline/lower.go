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
// PyTorch's _add_send_recv does (REFERENCE.md §3). It visits the ranks in
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
// The table must be compute only (no SEND or RECV yet) and its placement
// must put every action's stage on the action's rank. t is not changed.
func Lower(t *Table) (*Table, error) {
	if t.HasComms() {
		return nil, fmt.Errorf("pipeline: lower: the table already has SEND/RECV actions")
	}
	if err := checkPlacement(t); err != nil {
		return nil, fmt.Errorf("pipeline: lower: %w", err)
	}
	pending := make([][]Action, t.Ranks())
	done := make([]map[Action]bool, t.Ranks())
	out := withRows(t, make([][]Action, t.Ranks()))
	remaining := 0
	for r, row := range t.Rows {
		pending[r] = row
		remaining += len(row)
		// A rank ends up with its actions plus about one SEND or RECV each.
		done[r] = make(map[Action]bool, 2*len(row))
		out.Rows[r] = make([]Action, 0, 2*len(row))
	}
	for remaining > 0 {
		progress := false
		for r := range pending {
			if len(pending[r]) == 0 || !lowerReady(t, pending[r][0], done[r]) {
				continue
			}
			a := pending[r][0]
			pending[r] = pending[r][1:]
			remaining--
			progress = true
			if a.IsBubble() {
				continue
			}
			out.Rows[r] = append(out.Rows[r], a)
			for _, sub := range subActions(a) {
				done[r][sub] = true
				send, recv, ok := commsOf(t, sub)
				if !ok {
					continue
				}
				out.Rows[r] = append(out.Rows[r], send)
				done[r][send] = true
				peer := t.Placement[recv.Stage]
				out.Rows[peer] = append(out.Rows[peer], recv)
				done[peer][recv] = true
			}
		}
		if !progress {
			return nil, lowerStuck(t, pending)
		}
	}
	return out, nil
}

// lowerReady reports whether Lower may take a: every single action it stands
// for has its input on the rank already (done holds the rank's actions).
func lowerReady(t *Table, a Action, done map[Action]bool) bool {
	for _, sub := range subActions(a) {
		if !inputReady(t, sub, done) {
			return false
		}
	}
	return true
}

// inputReady reports whether a compute action's input is on its rank: a
// received activation or gradient, or the neighbouring stage's output
// computed on the same rank. Other kinds need nothing.
func inputReady(t *Table, a Action, done map[Action]bool) bool {
	alternatives := inputsOf(t, a)
	if alternatives == nil {
		return true
	}
	for _, in := range alternatives {
		if done[in] {
			return true
		}
	}
	return false
}

// inputsOf lists the actions any one of which provides a's input, or nil
// when a needs none: F on a stage after the first waits for its RECV_F or
// the local previous-stage F; I and B on a stage before the last wait for
// their RECV_B or the local next-stage I or B.
func inputsOf(t *Table, a Action) []Action {
	s, m := a.Stage, a.Microbatch
	switch {
	case a.Kind == Forward && s != 0:
		return []Action{Act(RecvF, s, m), F(s-1, m)}
	case (a.Kind == BackwardInput || a.Kind == Backward) && s != t.Stages()-1:
		return []Action{Act(RecvB, s, m), I(s+1, m), B(s+1, m)}
	}
	return nil
}

// commsOf returns the SEND that follows compute action a on its rank and the
// RECV it puts on the peer's rank, if a's output crosses ranks.
func commsOf(t *Table, a Action) (send, recv Action, ok bool) {
	s, m := a.Stage, a.Microbatch
	switch {
	case a.Kind == Forward && s != t.Stages()-1 && t.Placement[s+1] != t.Placement[s]:
		return Act(SendF, s, m), Act(RecvF, s+1, m), true
	case (a.Kind == BackwardInput || a.Kind == Backward) && s != 0 && t.Placement[s-1] != t.Placement[s]:
		return Act(SendB, s, m), Act(RecvB, s-1, m), true
	}
	return Action{}, Action{}, false
}

// lowerStuck describes a round of Lower in which no rank could move.
func lowerStuck(t *Table, pending [][]Action) error {
	var parts []string
	for r, row := range pending {
		if len(row) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("rank %d at %s waits for %s", r, row[0], describeInputs(t, row[0])))
	}
	return fmt.Errorf("pipeline: lower: malformed schedule, no rank can move: %s", strings.Join(parts, "; "))
}

// describeInputs names what a compute action (or each part of an
// OVERLAP_F_B) waits for.
func describeInputs(t *Table, a Action) string {
	var parts []string
	for _, sub := range subActions(a) {
		var alts []string
		for _, in := range inputsOf(t, sub) {
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
// simulation can index by stage safely.
func checkPlacement(t *Table) error {
	for s, r := range t.Placement {
		if r < 0 || r >= t.Ranks() {
			return fmt.Errorf("placement puts stage %d on rank %d, but the table has %d ranks", s, r, t.Ranks())
		}
	}
	for r, row := range t.Rows {
		for i, a := range row {
			for _, sub := range subActions(a) {
				if sub.Stage < 0 || sub.Stage >= t.Stages() {
					return fmt.Errorf("rank %d action %d (%s): stage %d is not among the %d stages", r, i, a, sub.Stage, t.Stages())
				}
				if t.Placement[sub.Stage] != r {
					return fmt.Errorf("rank %d action %d (%s): stage %d is placed on rank %d", r, i, a, sub.Stage, t.Placement[sub.Stage])
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
