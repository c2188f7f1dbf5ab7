package pipeline

import (
	"errors"
	"slices"
	"testing"
)

// roundRobinLockstep is the reference for runLockstep: PyTorch's stepping
// as it reads, every rank looked at in order twice per step (the first
// pass, then the ranks that stayed idle), the cost steps × ranks.
func roundRobinLockstep(t *Table) (*lockstep, error) {
	ls := &lockstep{t: t, pending: make([][]Action, t.Ranks()), done: newActionSet(t), steps: make([][]int, t.Ranks())}
	remaining := 0
	for r, row := range t.Rows {
		ls.pending[r] = skipBubbles(row)
		remaining += len(row) - countBubbles(row)
	}
	ran := make([]bool, t.Ranks())
	for step := 0; remaining > 0; step++ {
		progress := false
		for r := range ls.pending {
			ran[r] = len(ls.pending[r]) > 0 && ls.ready(ls.pending[r][0])
			if ran[r] {
				ls.run(r, step)
				progress = true
				remaining--
			}
		}
		if !progress {
			return nil, ls.deadlock(step)
		}
		for r := range ls.pending {
			if ran[r] || len(ls.pending[r]) == 0 || !ls.ready(ls.pending[r][0]) {
				continue
			}
			ls.run(r, step)
			remaining--
		}
	}
	return ls, nil
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
	if len(tables) < 60 {
		t.Fatalf("only %d tables to compare", len(tables))
	}
	for i, tb := range tables {
		got, err := runLockstep(tb)
		want, wantErr := roundRobinLockstep(tb)
		if wantErr != nil {
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
}
