package pipeline

import (
	"bytes"
	"errors"
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
