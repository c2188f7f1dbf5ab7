package pipeline

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestValidateCSVRefuses feeds one file per rule of PyTorch's
// _validate_schedule (torch/distributed/pipelining/schedules.py) and checks
// that each is refused at the line and cell of the action that breaks the
// rule, or for a count at the cell the rule points at, with the rule named.
// The expected positions are read off each file by hand.
func TestValidateCSVRefuses(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		line, cell int
		rule       string
	}{
		// The example: stage 1 backwards microbatch 0 it never
		// forwarded.
		{"B without F", "0F0,,0B0\r\n,1B0\r\n", 2, 2, ruleForwardFirst},
		{"B before F", "0B0,0F0\r\n", 1, 1, ruleForwardFirst},
		{"I before F", "0I0,0F0,0W0\r\n", 1, 1, ruleForwardFirst},
		{"overlap B before F", "0F0,1F0,(0F1;1B1)OVERLAP_F_B\r\n", 1, 3, ruleForwardFirst},
		{"W without I", "0F0,0W0,0I0\r\n", 1, 2, ruleInputFirst},
		{"W after B", "0F0,0B0,0W0\r\n", 1, 3, ruleInputFirst},
		{"B after I", "0F0,0I0,0B0,0W0\r\n", 1, 3, ruleOneBackward},
		{"I after B", "0F0,0B0,0I0,0W0\r\n", 1, 3, ruleOneBackward},
		{"F twice", "0F0,0F0,0B0\r\n", 1, 2, ruleOnce},
		{"W twice", "0F0,0I0,0W0,0W0\r\n", 1, 4, ruleOnce},
		// Microbatch 1 is forwarded on stage 0 only; the ranges 0..1 and 0
		// overlap, so both microbatches must run on both stages.
		{"stage misses a microbatch", "0F0,0F1,0B0,0B1\r\n,1F0,1B0\r\n", 2, 2, ruleForwards},
		{"stage with no microbatch", "0F0,0B0\r\n1REDUCE_GRAD\r\n", 2, 1, ruleForwards},
		{"no microbatch at all", "0REDUCE_GRAD\r\n", 1, 1, ruleForwards},
		{"I without W", "0F0,0F1,0I0,0W0,0I1\r\n", 1, 5, ruleWeights},
		{"never backwarded", "0F0,0F1,0B0\r\n", 1, 2, ruleBackwards},
		{"last microbatch never backwarded on stage 1", "0F0,0F1,,,0B0,0B1\r\n,1F0,1B0,1F1\r\n", 2, 4, ruleBackwards},
	}
	for _, tc := range tests {
		tb, err := ReadCSV(strings.NewReader(tc.in), "v.csv")
		if err != nil {
			t.Errorf("%s: ReadCSV: %v, want a table for ValidateCSV", tc.name, err)
			continue
		}
		err = ValidateCSV(tb, "v.csv")
		var pe *ParseError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
			t.Errorf("%s: ValidateCSV = %v, want a *ParseError wrapping ErrMalformed", tc.name, err)
			continue
		}
		if pe.File != "v.csv" || pe.Line != tc.line || pe.Cell != tc.cell || !strings.Contains(pe.Reason, "(rule: "+tc.rule) {
			t.Errorf("%s: got %q, want v.csv:%d: cell %d: ... (rule: %s)", tc.name, err, tc.line, tc.cell, tc.rule)
		}
	}
}

// TestValidateCSVMessages pins the wording of the example and of
// a count, which name the action, what is missing and the rule.
func TestValidateCSVMessages(t *testing.T) {
	for in, want := range map[string]string{
		"0F0,,0B0\r\n,1B0\r\n": "v.csv:2: cell 2: 1B0 before 1F0, or without it (rule: " + ruleForwardFirst + ")",
		"0F0,0F1,0B0,0B1\r\n,1F0,1B0\r\n": "v.csv:2: cell 2: stage 1 forwards 1 of its 2 microbatches: microbatch 1 has no 1F1 (rule: " +
			ruleForwards + ")",
		"0F0,0F1,0I0,0W0,0I1\r\n": "v.csv:1: cell 5: 0I1 has no 0W1: stage 0 runs 2 I but 1 W (rule: " + ruleWeights + ")",
	} {
		tb, err := ReadCSV(strings.NewReader(in), "v.csv")
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateCSV(tb, "v.csv"); err == nil || err.Error() != want {
			t.Errorf("%q: ValidateCSV = %v, want %q", in, err, want)
		}
	}
}

// TestValidateCSVAccepts checks that what PyTorch loads passes: its test
// artifacts (interleaved zero bubble before and after lowering, DualPipeV
// with OVERLAP_F_B), and every generated family written as a CSV, compute
// only and lowered.
func TestValidateCSVAccepts(t *testing.T) {
	for _, path := range []string{fixtureCompute, fixtureComms, fixtureDualPipeV} {
		if err := ValidateCSV(readCSVFile(t, path), path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, f := range Families() {
		for _, sh := range []Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 8}} {
			tb, err := Generate(f.Name, sh)
			if err != nil {
				continue // the family refuses the shape; generators_test.go covers which
			}
			low, err := Lower(tb)
			if err != nil {
				t.Fatalf("%s %+v: %v", f.Name, sh, err)
			}
			for _, w := range []*Table{tb, low} {
				var buf bytes.Buffer
				if err := WriteCSV(&buf, w); err != nil {
					t.Fatal(err)
				}
				back, err := ReadCSV(&buf, f.Name+".csv")
				if err == nil {
					err = ValidateCSV(back, f.Name+".csv")
				}
				if err != nil {
					t.Errorf("%s %+v (comms %v): %v", f.Name, sh, w.HasComms(), err)
				}
			}
		}
	}
}

// TestReadCSVByteOrderMark reads a file saved by a spreadsheet program:
// the UTF-8 byte order mark before the first cell is not part of it.
func TestReadCSVByteOrderMark(t *testing.T) {
	tb, err := ReadCSV(strings.NewReader("\ufeff0F0,0B0\r\n"), "bom.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]Action{{F(0, 0), B(0, 0)}}; !rowsEqual(tb.Rows, want) {
		t.Errorf("rows %v, want %v", tb.Rows, want)
	}
}

// pyValidate re-computes, for the test, whether PyTorch's
// _validate_schedule (torch/distributed/pipelining/schedules.py) accepts
// rows, given the stage and microbatch counts: it walks every rank's row
// keeping per stage the sets of microbatches with an F, B, I and W, raises
// on a B or I without an earlier F, a W without an earlier I, or a stage on
// two ranks, and then on any stage whose F count is not M, whose I and W
// counts differ, or whose B + (I+W)/2 is not M.
func pyValidate(rows [][]Action, stages, microbatches int) bool {
	sets := make([]map[Kind]map[int]bool, stages)
	for s := range sets {
		sets[s] = map[Kind]map[int]bool{Forward: {}, Backward: {}, BackwardInput: {}, BackwardWeight: {}}
	}
	rankOf := map[int]int{}
	for r, row := range rows {
		for _, a := range row {
			for _, sub := range subActions(a) {
				set := sets[sub.Stage]
				switch sub.Kind {
				case Backward, BackwardInput:
					if !set[Forward][sub.Microbatch] {
						return false
					}
				case BackwardWeight:
					if !set[BackwardInput][sub.Microbatch] {
						return false
					}
				}
				if sub.Kind.IsCompute() {
					set[sub.Kind][sub.Microbatch] = true
				}
				if owner, ok := rankOf[sub.Stage]; ok && owner != r {
					return false
				}
				rankOf[sub.Stage] = r
			}
		}
	}
	for _, set := range sets {
		f, b, i, w := len(set[Forward]), len(set[Backward]), len(set[BackwardInput]), len(set[BackwardWeight])
		if f != microbatches || i != w || b+(i+w)/2 != microbatches {
			return false
		}
	}
	return true
}

// TestValidateCSVAgreesWithPyTorch compares ValidateCSV's verdict with
// pyValidate's on random small files: schedules of the generated families
// with one cell deleted, moved or replaced, and rows of random actions.
// Files where pipelab is stricter on purpose are left out: those that
// repeat an action (PyTorch counts distinct microbatches) and those read
// with Routes (Chimera's pipelines, which PyTorch has not). ReadCSV's own
// refusals (a stage on two ranks, stages or microbatches not numbered
// from 0 without gaps) count as refusals: each of those files breaks one of
// PyTorch's rules too, given the counts ReadCSV would infer.
func TestValidateCSVAgreesWithPyTorch(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	kinds := []Kind{Forward, Backward, BackwardInput, BackwardWeight}
	var bases [][][]Action
	for _, name := range []string{"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-v", "interleaved-zb", "dualpipev"} {
		for _, sh := range []Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 2, Microbatches: 2}} {
			if tb, err := Generate(name, sh); err == nil {
				bases = append(bases, tb.Rows)
			}
		}
	}
	compared, refused := 0, 0
	for trial := range 20000 {
		var rows [][]Action
		if trial%2 == 0 {
			rows = mutate(rng, bases[rng.IntN(len(bases))])
		} else {
			rows = randomRows(rng, kinds)
		}
		text := csvOf(t, rows)
		tb, err := ReadCSV(strings.NewReader(text), "r.csv")
		if err == nil && (tb.Routes != nil || repeats(tb.Rows)) {
			continue
		}
		got := err == nil && ValidateCSV(tb, "r.csv") == nil
		want := err == nil && pyValidate(tb.Rows, tb.Stages(), tb.Microbatches)
		if err != nil {
			want = false
		}
		if got != want {
			t.Fatalf("%q: ValidateCSV accepts = %v, PyTorch's rules accept = %v (ReadCSV: %v, ValidateCSV: %v)",
				text, got, want, err, ValidateCSV(tb, "r.csv"))
		}
		compared++
		if !got {
			refused++
		}
	}
	t.Logf("compared %d files with PyTorch's rules, %d refused by both", compared, refused)
	if compared < 5000 || refused == 0 || refused == compared {
		t.Fatalf("compared %d files, %d refused: too few of one verdict to mean anything", compared, refused)
	}
}

// mutate returns a copy of rows with one action deleted, moved to another
// place in its row, or replaced by another kind.
func mutate(rng *rand.Rand, rows [][]Action) [][]Action {
	out := make([][]Action, len(rows))
	for r, row := range rows {
		out[r] = withoutBubbles(row)
	}
	r := rng.IntN(len(out))
	row := out[r]
	if len(row) == 0 {
		return out
	}
	i := rng.IntN(len(row))
	a := row[i]
	switch rng.IntN(3) {
	case 0:
		out[r] = append(row[:i:i], row[i+1:]...)
	case 1:
		rest := append(row[:i:i], row[i+1:]...)
		j := rng.IntN(len(rest) + 1)
		out[r] = append(rest[:j:j], append([]Action{a}, rest[j:]...)...)
	default:
		if a.Kind != OverlapFB {
			row[i].Kind = []Kind{Forward, Backward, BackwardInput, BackwardWeight}[rng.IntN(4)]
		}
	}
	return out
}

// randomRows returns one or two rows of up to eight random compute actions
// on stages 0..2 and microbatches 0..1.
func randomRows(rng *rand.Rand, kinds []Kind) [][]Action {
	rows := make([][]Action, 1+rng.IntN(2))
	for r := range rows {
		for range rng.IntN(9) {
			rows[r] = append(rows[r], Act(kinds[rng.IntN(len(kinds))], rng.IntN(3), rng.IntN(2)))
		}
	}
	return rows
}

// repeats reports whether some stage runs one kind of compute action twice
// for one microbatch.
func repeats(rows [][]Action) bool {
	seen := map[Action]bool{}
	for _, row := range rows {
		for _, a := range row {
			for _, sub := range subActions(a) {
				if sub.Kind.IsCompute() && seen[sub] {
					return true
				}
				seen[sub] = true
			}
		}
	}
	return false
}
