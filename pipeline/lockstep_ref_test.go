package pipeline

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// roundRobinLockstep is the reference for runLockstep: PyTorch's stepping
// as it reads, every rank looked at in order twice per step (the first
// pass, then the ranks that stayed idle), the cost steps × ranks. It keeps
// what has run in a map and shares only the rule of what an action waits
// for (waitsFor) with runLockstep.
func roundRobinLockstep(t *Table) (*lockstep, error) {
	ls := &lockstep{t: t, pending: make([][]Action, t.Ranks()), steps: make([][]int, t.Ranks())}
	ran := map[Action]bool{}
	ready := func(a Action) bool {
		for _, sub := range subActions(a) {
			w := ls.waitsFor(sub)
			if w.n == 0 {
				continue
			}
			found := false
			for _, in := range w.actions[:w.n] {
				found = found || (w.rank >= 0 && ran[in] && t.Placement[in.Stage] == w.rank)
			}
			if !found {
				return false
			}
		}
		return true
	}
	run := func(r, step int) {
		for _, sub := range subActions(ls.pending[r][0]) {
			ran[sub] = true
		}
		ls.pending[r] = skipBubbles(ls.pending[r][1:])
		ls.steps[r] = append(ls.steps[r], step)
	}
	remaining := 0
	for r, row := range t.Rows {
		ls.pending[r] = skipBubbles(row)
		remaining += len(row) - countBubbles(row)
	}
	ranThisPass := make([]bool, t.Ranks())
	for step := 0; remaining > 0; step++ {
		progress := false
		for r := range ls.pending {
			ranThisPass[r] = len(ls.pending[r]) > 0 && ready(ls.pending[r][0])
			if ranThisPass[r] {
				run(r, step)
				progress = true
				remaining--
			}
		}
		if !progress {
			return nil, roundRobinDeadlock(ls, ran, step)
		}
		for r := range ls.pending {
			if ranThisPass[r] || len(ls.pending[r]) == 0 || !ready(ls.pending[r][0]) {
				continue
			}
			run(r, step)
			remaining--
		}
	}
	return ls, nil
}

// roundRobinDeadlock describes the ranks left waiting, as
// DeadlockError.Error spells them, from the map of what ran.
func roundRobinDeadlock(ls *lockstep, ran map[Action]bool, step int) error {
	e := &DeadlockError{Step: step}
	for r, row := range ls.pending {
		if len(row) == 0 {
			continue
		}
		var waits []Action
		for _, sub := range subActions(row[0]) {
			w := ls.waitsFor(sub)
			found := false
			for _, in := range w.actions[:w.n] {
				found = found || (w.rank >= 0 && ran[in] && ls.t.Placement[in.Stage] == w.rank)
			}
			if w.n > 0 && !found {
				waits = append(waits, w.actions[:w.n]...)
			}
		}
		e.Blocked = append(e.Blocked, Blocked{Rank: r, Action: row[0], WaitsFor: waits})
	}
	return e
}

// The event-driven stepping puts every action of every lowered family in
// the step the round-robin stepping does, and reports the same deadlocks.
func TestLockstepIsRoundRobin(t *testing.T) {
	var tables []*Table
	for _, fam := range []string{"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-v", "dualpipev", "interleaved-zb", "chimera", "hanayo"} {
		for _, sh := range []Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 8}, {Ranks: 4, Microbatches: 12}, {Ranks: 8, Microbatches: 16}, {Ranks: 32, Microbatches: 64}} {
			tb, err := Generate(fam, sh)
			if err != nil {
				continue
			}
			for _, prep := range []func(*Table) *Table{func(t *Table) *Table { return t }, DropBubbles, MergeIW} {
				if low, err := Lower(prep(tb)); err == nil {
					tables = append(tables, low)
				}
			}
		}
	}
	// Deadlocks: a RECV before the SEND it needs on both ranks, and a
	// row that waits for itself.
	tables = append(tables,
		&Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]Action{
			{Act(RecvB, 0, 0), F(0, 0), Act(SendF, 0, 0), B(0, 0)},
			{Act(RecvF, 1, 0), F(1, 0), B(1, 0), Act(SendB, 1, 0)}}},
		&Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]Action{
			{F(0, 0), Act(SendF, 0, 0), Act(RecvB, 0, 0), B(0, 0)},
			{F(1, 0), Act(RecvF, 1, 0), B(1, 0), Act(SendB, 1, 0)}}})
	// Lowered rows with two cells swapped: SENDs before their compute,
	// RECVs out of order, deadlocks at all sorts of places.
	tables = append(tables, swappedTables(t, rand.New(rand.NewPCG(16, 2)), Lower)...)
	if len(tables) < 60 {
		t.Fatalf("only %d tables to compare", len(tables))
	}
	deadlocks := 0
	for i, tb := range tables {
		got, err := runLockstep(tb)
		want, wantErr := roundRobinLockstep(tb)
		if wantErr != nil {
			deadlocks++
			var a, b *DeadlockError
			if !errors.As(err, &a) || !errors.As(wantErr, &b) || err.Error() != wantErr.Error() {
				t.Errorf("table %d: %v, want %v", i, err, wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("table %d: %v", i, err)
			continue
		}
		if !slices.EqualFunc(got.steps, want.steps, slices.Equal) {
			t.Errorf("table %d (%d ranks): steps differ from the round-robin stepping", i, tb.Ranks())
		}
	}
	if deadlocks < 20 {
		t.Errorf("only %d deadlocks compared", deadlocks)
	}
}
