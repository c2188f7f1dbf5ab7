package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

// shapeGrid is the (P, M, V) grid every family is tried on: the edge cases
// M < P, M = 1 and P = 1, shapes where M is and is not a multiple of P, and
// chunk counts 1 to 4 (0 is the family's default).
func shapeGrid() []Shape {
	var grid []Shape
	for _, p := range []int{1, 2, 3, 4, 5} {
		for _, m := range []int{1, 2, 3, 4, 6, 8, 10} {
			for _, v := range []int{0, 1, 2, 3, 4} {
				grid = append(grid, Shape{Ranks: p, Microbatches: m, Chunks: v, LocalSteps: 2})
			}
		}
	}
	return grid
}

// refusal is what a family's error must name for a shape it may refuse:
// the constraint's words. A family refusing a shape for any other reason
// fails the test.
var refusals = map[string][]string{
	"gpipe":            {"chunks must be 1"},
	"1f1b":             {"chunks must be 1"},
	"interleaved-1f1b": {"multiple of the number of rounds"},
	"zb-h1":            {"chunks must be 1"},
	"zb-h2":            {"chunks must be 1"},
	"zb-v":             {"chunks must be 2"},
	"chimera":          {"chunks must be 1", "even number of ranks", "multiple of ranks (M mod P = 0)"},
	"hanayo":           {"chunks must be even"},
	"pipedream":        {"chunks must be 1"},
	"localsgd":         {"chunks must be 1"},
	"interleaved-zb":   {"multiple of the number of rounds"},
	"dualpipev":        {"chunks must be 2", "M >= 2P"},
	"dualpipe":         {"chunks must be 1", "even number of ranks", "M even, M >= 2P"},
	"v-half":           {"chunks must be 2"},
	"v-min":            {"chunks must be 2"},
	"combined-1f1b":    {"chunks must be at least 2", "multiple of the number of rounds"},
}

// unitTimeFamilies place every action at its idealised unit-time column.
// (interleaved-zb keeps PyTorch's own padding, which delays forwards only;
// dualpipev's OVERLAP_F_B cells are checked by TestDualPipeVUnitGrid.)
var unitTimeFamilies = map[string]bool{
	"gpipe": true, "1f1b": true, "interleaved-1f1b": true, "looped-bfs": true, "zb-h1": true, "zb-h2": true,
	"zb-v": true, "chimera": true, "hanayo": true, "pipedream": true, "localsgd": true, "v-half": true, "v-min": true,
}

// TestGeneratorsGrid generates every registered family on every shape of
// the grid: each table either validates, keeps every dependency in unit
// time (for the families placed in unit time), lowers and runs to
// completion in PyTorch's lockstep check (along each microbatch's route
// for Chimera), or the family refuses the shape with an error naming one
// of its constraints.
func TestGeneratorsGrid(t *testing.T) {
	for _, f := range Families() {
		accepted := 0
		for _, sh := range shapeGrid() {
			name := fmt.Sprintf("%s/P%d_M%d_V%d", f.Name, sh.Ranks, sh.Microbatches, sh.Chunks)
			tb, err := Generate(f.Name, sh)
			if err != nil {
				if !namesConstraint(err, refusals[f.Name]) {
					t.Errorf("%s: refused without naming a known constraint: %v", name, err)
				}
				continue
			}
			accepted++
			if tb.Family != f.Name || tb.Microbatches != sh.Microbatches {
				t.Errorf("%s: Family %q Microbatches %d", name, tb.Family, tb.Microbatches)
			}
			if err := tb.Validate(); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if err := unitTimeViolation(tb); err != nil && unitTimeFamilies[f.Name] {
				t.Errorf("%s: grid breaks unit time: %v", name, err)
			}
			lowersAndRuns(t, name, tb)
		}
		if accepted == 0 {
			t.Errorf("%s accepted no shape of the grid", f.Name)
		}
	}
}

func namesConstraint(err error, constraints []string) bool {
	for _, c := range constraints {
		if strings.Contains(err.Error(), c) {
			return true
		}
	}
	return false
}

// unitTimeViolation checks a grid against the idealised unit-time rules on
// its own, independently of the placement the generators use: every cell
// runs one action for one step, and each action's inputs (along the
// microbatch's route) ran in a strictly earlier column.
func unitTimeViolation(tb *Table) error {
	column := map[Action]int{}
	for _, row := range tb.Rows {
		for c, a := range row {
			if !a.IsBubble() {
				column[a] = c
			}
		}
	}
	ranEarlier := func(c int, inputs ...Action) bool {
		for _, in := range inputs {
			if ic, ok := column[in]; ok && ic < c {
				return true
			}
		}
		return false
	}
	for r, row := range tb.Rows {
		for c, a := range row {
			if a.IsBubble() {
				continue
			}
			s, m := a.Stage, a.Microbatch
			rt := tb.RouteOf(m)
			ok := true
			switch a.Kind {
			case Forward:
				ok = s == rt.First || ranEarlier(c, F(s-1, m))
			case Backward, BackwardInput:
				ok = ranEarlier(c, F(s, m)) && (s == rt.Last || ranEarlier(c, B(s+1, m), I(s+1, m)))
			case BackwardWeight:
				ok = ranEarlier(c, I(s, m))
			}
			if !ok {
				return fmt.Errorf("rank %d column %d (%s) runs before its inputs", r, c, a)
			}
		}
	}
	return nil
}

// TestGenerateRefusesBadShapes checks the shape errors every family shares.
func TestGenerateRefusesBadShapes(t *testing.T) {
	for _, f := range Families() {
		for _, tc := range []struct {
			sh   Shape
			want string
		}{
			{Shape{Ranks: 0, Microbatches: 4}, "ranks"},
			{Shape{Ranks: 4, Microbatches: 0}, "microbatches"},
			{Shape{Ranks: -1, Microbatches: 4}, "ranks"},
		} {
			_, err := Generate(f.Name, tc.sh)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %+v: error %v, want one naming %q", f.Name, tc.sh, err, tc.want)
			}
		}
	}
	if _, err := Generate("no-such-family", Shape{Ranks: 2, Microbatches: 2}); err == nil || !strings.Contains(err.Error(), "1f1b") {
		t.Errorf("unknown family: %v, want the known families listed", err)
	}
}

// TestGeneratedTablesAreDeterministic generates each family twice.
func TestGeneratedTablesAreDeterministic(t *testing.T) {
	for _, f := range Families() {
		a, errA := Generate(f.Name, Shape{Ranks: 4, Microbatches: 8, LocalSteps: 2})
		b, errB := Generate(f.Name, Shape{Ranks: 4, Microbatches: 8, LocalSteps: 2})
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", f.Name, errA, errB)
		}
		if !rowsEqual(a.Rows, b.Rows) {
			t.Errorf("%s: two runs differ", f.Name)
		}
	}
}

// rowStats summarises one rank's row: the forwards before its first
// backward (I or B), the peak of microbatch-stages in flight (forward done,
// backward not finished: B, or W when the backward is split), and the
// number of bubbles between its first and last action.
type rowStats struct {
	warmup, peak, gaps int
}

func statsOf(row []Action) rowStats {
	var st rowStats
	inFlight, first, last, seenBackward := 0, -1, -1, false
	for c, a := range row {
		if a.IsBubble() {
			continue
		}
		if first < 0 {
			first = c
		}
		last = c
		switch a.Kind {
		case Forward:
			inFlight++
			st.peak = max(st.peak, inFlight)
			if !seenBackward {
				st.warmup++
			}
		case Backward, BackwardWeight:
			inFlight--
		}
		if a.Kind == Backward || a.Kind == BackwardInput {
			seenBackward = true
		}
	}
	for c := first; c >= 0 && c <= last; c++ {
		if row[c].IsBubble() {
			st.gaps++
		}
	}
	return st
}

// gridLength is the number of columns of the grid: its longest row.
func gridLength(tb *Table) int {
	n := 0
	for _, row := range tb.Rows {
		n = max(n, len(row))
	}
	return n
}

func mustGenerate(t *testing.T, family string, sh Shape) *Table {
	t.Helper()
	tb, err := Generate(family, sh)
	if err != nil {
		t.Fatalf("%s %+v: %v", family, sh, err)
	}
	return tb
}

func TestFamiliesListEveryGenerator(t *testing.T) {
	want := []string{"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-v",
		"chimera", "hanayo", "pipedream", "localsgd", "dualpipev"}
	have := map[string]Family{}
	for _, f := range Families() {
		have[f.Name] = f
	}
	for _, name := range want {
		f, ok := have[name]
		if !ok {
			t.Errorf("family %q is not registered", name)
			continue
		}
		if f.Summary == "" || strings.Contains(f.Summary, "\n") {
			t.Errorf("family %q: summary %q is not one line", name, f.Summary)
		}
	}
}

// lowersAndRuns lowers tb as PyTorch does and runs PyTorch's lockstep
// check to its end, reporting a failure under name.
func lowersAndRuns(t *testing.T, name string, tb *Table) {
	t.Helper()
	lowered, err := Lower(tb)
	if err != nil {
		t.Errorf("%s: lower: %v", name, err)
		return
	}
	if _, err := Lockstep(lowered); err != nil {
		t.Errorf("%s: lockstep: %v", name, err)
	}
}
