package pipeline

import (
	"math/rand/v2"
	"testing"
)

// roundRobinLower is the reference for Lower: PyTorch's _add_send_recv as
// it reads (docs/reference.md §3), every rank visited in order round after
// round, taking its next cell when the rank holds one of each input's
// providers, with what has been emitted kept in a map. It shares inputsOf
// and commsOf, the rule of what waits for what, with Lower.
func roundRobinLower(t *Table) (*Table, error) {
	if err := checkPlacement(t); err != nil {
		return nil, err
	}
	emitted := map[Action]bool{}
	holds := func(r int, a Action) bool {
		for _, sub := range subActions(a) {
			inputs, n := inputsOf(t, sub)
			found := n == 0
			for _, in := range inputs[:n] {
				found = found || (emitted[in] && t.Placement[in.Stage] == r)
			}
			if !found {
				return false
			}
		}
		return true
	}
	out := withRows(t, make([][]Action, t.Ranks()))
	pending := make([][]Action, t.Ranks())
	remaining := 0
	for r, row := range t.Rows {
		pending[r] = row
		remaining += len(row)
	}
	for remaining > 0 {
		progress := false
		for r := range pending {
			if len(pending[r]) == 0 || !holds(r, pending[r][0]) {
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
				emitted[sub] = true
				if send, recv, ok := commsOf(t, sub); ok {
					out.Rows[r] = append(out.Rows[r], send)
					peer := t.Placement[recv.Stage]
					out.Rows[peer] = append(out.Rows[peer], recv)
					emitted[recv] = true
				}
			}
		}
		if !progress {
			return nil, lowerStuck(t, pending)
		}
	}
	return out, nil
}

// Lower, which works the rounds out instead of stepping through them, puts
// every SEND and RECV where the round-robin does, for every family and
// shape (with and without bubbles, with I and W merged), and reports the
// same stuck ranks; so it does for tables whose rows are shuffled, which
// get stuck at all sorts of places.
func TestLowerIsRoundRobin(t *testing.T) {
	tables := familyTables([]Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 8}, {Ranks: 4, Microbatches: 12}, {Ranks: 8, Microbatches: 16}, {Ranks: 32, Microbatches: 64}})
	tables = append(tables, swappedTables(t, rand.New(rand.NewPCG(16, 1)), asGenerated)...)
	stuck, matched := 0, 0
	for i, tb := range tables {
		got, err := Lower(tb)
		want, wantErr := roundRobinLower(tb)
		if wantErr != nil {
			stuck++
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("table %d (%s): %v, want %v", i, tb.Family, err, wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("table %d (%s): %v", i, tb.Family, err)
			continue
		}
		if !rowsEqual(got.Rows, want.Rows) {
			t.Errorf("table %d (%s, %d ranks): lowered rows differ from the round-robin's", i, tb.Family, tb.Ranks())
		}
		matched++
	}
	t.Logf("%d stuck, %d lowered", stuck, matched)
	if stuck < 5 || matched < 150 {
		t.Errorf("%d stuck and %d lowered tables compared, want at least 5 and 150", stuck, matched)
	}
}

// familyTables is every family that generates at each shape, each as
// generated, without its bubbles, and with I and W merged.
func familyTables(shapes []Shape) []*Table {
	var tables []*Table
	for _, fam := range []string{"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-v", "dualpipev", "interleaved-zb", "chimera", "hanayo"} {
		for _, sh := range shapes {
			tb, err := Generate(fam, sh)
			if err != nil {
				continue
			}
			tables = append(tables, tb, DropBubbles(tb), MergeIW(tb))
		}
	}
	return tables
}

// swappedTables returns, for five families at 4 ranks and 8 microbatches,
// 20 copies each of the table prepare makes (the generated one, or its
// lowering) with two cells of one row swapped: tables that get stuck, or
// whose SENDs and RECVs come out of order, at all sorts of places.
func swappedTables(t *testing.T, rng *rand.Rand, prepare func(*Table) (*Table, error)) []*Table {
	t.Helper()
	var tables []*Table
	for _, fam := range []string{"1f1b", "interleaved-1f1b", "zb-h1", "dualpipev", "chimera"} {
		tb, err := Generate(fam, Shape{Ranks: 4, Microbatches: 8})
		if err == nil {
			tb, err = prepare(tb)
		}
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			sh := tb.Clone()
			row := sh.Rows[rng.IntN(sh.Ranks())]
			i, j := rng.IntN(len(row)), rng.IntN(len(row))
			row[i], row[j] = row[j], row[i]
			tables = append(tables, sh)
		}
	}
	return tables
}

// asGenerated is swappedTables' prepare for the generated tables.
func asGenerated(tb *Table) (*Table, error) { return tb, nil }
