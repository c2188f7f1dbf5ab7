package pipeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// validateReference is Validate as it was before its fast path: every
// action, single or not, goes through subActions, validateAction and a
// computeGrid-backed record, and the completeness check asks the grid
// for every kind. It is the reference that Validate's answers, errors
// included, are compared with.
func validateReference(t *Table) error {
	if err := t.validateShape(); err != nil {
		return err
	}
	g := newComputeGrid(t.Stages(), t.Microbatches)
	seen := func(k Kind, s, m int) bool { return g.get(k, s, m) >= 0 }
	for r, row := range t.Rows {
		for i, a := range row {
			if a.IsBubble() {
				continue
			}
			if int(a.Kind) >= len(kindNames) {
				return cellError(r, i, a, "unknown action kind %d", uint8(a.Kind))
			}
			for _, sub := range subActions(a) {
				if err := t.validateAction(r, sub); err != nil {
					return cellError(r, i, a, "%v", err)
				}
				if !sub.Kind.IsCompute() {
					continue
				}
				s, m := sub.Stage, sub.Microbatch
				var err error
				switch {
				case seen(sub.Kind, s, m):
					err = fmt.Errorf("microbatch %d already has a %s on stage %d (cell %d)", m, sub.Kind, s, g.get(sub.Kind, s, m))
				case (sub.Kind == Backward || sub.Kind == BackwardInput) && !seen(Forward, s, m):
					err = fmt.Errorf("backward of microbatch %d on stage %d before its forward", m, s)
				case sub.Kind == Backward && (seen(BackwardInput, s, m) || seen(BackwardWeight, s, m)),
					sub.Kind == BackwardInput && seen(Backward, s, m):
					err = fmt.Errorf("microbatch %d on stage %d has both a full backward B and a split one (I, W)", m, s)
				case sub.Kind == BackwardWeight && !seen(BackwardInput, s, m):
					err = fmt.Errorf("weight gradient W of microbatch %d on stage %d before its input gradient I", m, s)
				}
				if err != nil {
					return cellError(r, i, a, "%v", err)
				}
				g.set(sub.Kind, s, m, i)
			}
		}
	}
	for m := range t.Microbatches {
		rt := t.RouteOf(m)
		for s := rt.First; s <= rt.Last; s++ {
			switch {
			case !seen(Forward, s, m):
				return invalidf("pipeline: stage %d microbatch %d: never forwarded (no %s)", s, m, F(s, m))
			case !seen(Backward, s, m) && !seen(BackwardInput, s, m):
				return invalidf("pipeline: stage %d microbatch %d: never backwarded (no %s, nor %s and %s)", s, m, B(s, m), I(s, m), W(s, m))
			case seen(BackwardInput, s, m) && !seen(BackwardWeight, s, m):
				return invalidf("pipeline: stage %d microbatch %d: %s without its weight gradient %s", s, m, I(s, m), W(s, m))
			}
		}
	}
	return nil
}

// Validate gives the reference's answer, the same error word for word or
// none, on every family's tables (as generated, without bubbles, with I
// and W merged, lowered) and on thousands of them broken at random: cells
// swapped, dropped, duplicated, moved to another rank, given another
// kind, stage or microbatch (in range and out), OVERLAP_F_B cells made of
// two others, and routes or placements changed. Both accept the
// unbroken tables, and both reject most broken ones, in every way they
// can.
func TestValidateIsReference(t *testing.T) {
	base := familyTables([]Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 8}, {Ranks: 4, Microbatches: 6, Chunks: 2}})
	for _, tb := range base[:len(base):len(base)] {
		if low, err := Lower(tb); err == nil {
			base = append(base, low)
		}
	}
	rng := rand.New(rand.NewPCG(16, 2))
	accepted, rejected := 0, 0
	messages := map[string]bool{}
	check := func(name string, tb *Table) {
		t.Helper()
		got, want := tb.Validate(), validateReference(tb)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Fatalf("%s: Validate says %v, the reference %v", name, got, want)
		}
		if want == nil {
			accepted++
			return
		}
		rejected++
		messages[kindOfError(want.Error())] = true
	}
	for i, tb := range base {
		check(fmt.Sprintf("table %d (%s)", i, tb.Family), tb)
		for j := range 12 {
			bad := tb.Clone()
			breakAtRandom(rng, bad)
			check(fmt.Sprintf("table %d (%s) broken %d", i, tb.Family, j), bad)
		}
	}
	t.Logf("%d accepted, %d rejected, %d kinds of error", accepted, rejected, len(messages))
	if accepted < len(base) || rejected < 5*len(base) || len(messages) < 10 {
		t.Errorf("%d accepted and %d rejected with %d kinds of error, want at least %d, %d and 10",
			accepted, rejected, len(messages), len(base), 5*len(base))
	}
}

// kindOfError keeps the words of a Validate error, dropping its numbers
// and actions, so that the test can count how many rules it saw broken.
func kindOfError(msg string) string {
	out := []rune{}
	for _, c := range msg {
		if c >= 'a' && c <= 'z' || c == ' ' {
			out = append(out, c)
		}
	}
	return string(out)
}

// breakAtRandom changes tb in one of many ways, most of which break it.
func breakAtRandom(rng *rand.Rand, tb *Table) {
	r := rng.IntN(tb.Ranks())
	row := tb.Rows[r]
	if len(row) == 0 {
		return
	}
	i, j := rng.IntN(len(row)), rng.IntN(len(row))
	pick := func(n int) int { return rng.IntN(n+2) - 1 } // -1..n: in range and just out
	switch rng.IntN(11) {
	case 0:
		row[i], row[j] = row[j], row[i]
	case 1:
		tb.Rows[r] = append(row[:i:i], row[i+1:]...)
	case 2:
		row[j] = row[i]
	case 3:
		o := rng.IntN(tb.Ranks())
		tb.Rows[o] = append(tb.Rows[o], row[i])
	case 4:
		row[i].Kind = Kind(rng.IntN(int(OverlapFB) + 2))
	case 5:
		row[i].Stage = pick(tb.Stages())
	case 6:
		row[i].Microbatch = pick(tb.Microbatches)
	case 7:
		row[i] = Action{Kind: OverlapFB, Stage: row[i].Stage, Microbatch: row[i].Microbatch, BackStage: row[j].Stage, BackMicrobatch: row[j].Microbatch}
		tb.Rows[r] = append(row[:j:j], row[j+1:]...)
	case 8:
		tb.Placement[rng.IntN(tb.Stages())] = pick(tb.Ranks())
	case 9:
		if tb.Routes != nil {
			tb.Routes[rng.IntN(len(tb.Routes))].First = pick(tb.Stages())
		} else {
			tb.Microbatches += rng.IntN(3) - 1
		}
	case 10:
		if tb.MicrobatchRoute != nil {
			tb.MicrobatchRoute[rng.IntN(len(tb.MicrobatchRoute))] = pick(len(tb.Routes))
		} else {
			tb.Rows[r][i] = Action{}
		}
	}
}
