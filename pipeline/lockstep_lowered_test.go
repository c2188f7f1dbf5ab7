package pipeline

import (
	"math/rand/v2"
	"testing"
)

// LowerLockstep is Lockstep of Lower, step for step and error for error:
// on every family and shape (with and without bubbles, I and W merged),
// on tables whose rows are shuffled (Lower stuck, or lowered rows that
// lock up), and on tables Lower refuses.
func TestLowerLockstepIsLockstepOfLower(t *testing.T) {
	tables := familyTables([]Shape{{Ranks: 1, Microbatches: 3}, {Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 12}, {Ranks: 8, Microbatches: 16}, {Ranks: 16, Microbatches: 64}})
	tables = append(tables, swappedTables(t, rand.New(rand.NewPCG(16, 3)), asGenerated)...)
	tables = append(tables,
		&Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]Action{{F(0, 0), Act(SendF, 0, 0)}, {Act(RecvF, 1, 0), F(1, 0)}}},
		&Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]Action{{F(0, 0), F(1, 0)}, {B(1, 0)}}},
		&Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]Action{{W(0, 0)}, {W(1, 0)}}},
		&Table{Placement: []int{0, 1}, Microbatches: 0, Rows: [][]Action{{}, {}}})
	failed := 0
	for i, tb := range tables {
		got, err := LowerLockstep(tb)
		want, wantErr := 0, error(nil)
		low, wantErr := Lower(tb)
		if wantErr == nil {
			want, wantErr = Lockstep(low)
		}
		if wantErr != nil {
			failed++
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("table %d (%s): %v, want %v", i, tb.Family, err, wantErr)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("table %d (%s, %d ranks): %d steps, %v; want %d", i, tb.Family, tb.Ranks(), got, err, want)
		}
		// The count came from the lowered cells, not from the lowered table.
		if lw, err := lowerRounds(tb); err != nil {
			t.Errorf("table %d: %v", i, err)
		} else if _, ok := lw.lockstep(); !ok {
			t.Errorf("table %d (%s): LowerLockstep built the lowered table", i, tb.Family)
		}
	}
	if failed < 20 {
		t.Errorf("only %d failing tables compared", failed)
	}
}
