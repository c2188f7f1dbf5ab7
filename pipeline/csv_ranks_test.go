package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// ValidateRanks passes a table with the ranks declared and refuses one
// with fewer or more lines, as PyTorch's _validate_schedule refuses a
// schedule whose rank count is not its group's size, at the line where
// the first missing or extra rank is.
func TestValidateRanks(t *testing.T) {
	tb, err := ReadCSV(strings.NewReader("0F0,,0B0\n,1F0,1B0\n"), "two.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateRanks(tb, "two.csv", 2); err != nil {
		t.Errorf("2 ranks declared: %v", err)
	}
	for _, c := range []struct {
		ranks int
		line  int
		want  string
	}{
		{3, 3, "2 ranks (one per line), expected 3: rank 2 has no line"},
		{5, 3, "expected 5: ranks 2 to 4 have no line"},
		{1, 2, "expected 1: line 2 is rank 1, beyond the last"},
	} {
		err := ValidateRanks(tb, "two.csv", c.ranks)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || pe.Line != c.line || pe.Cell != 1 || !strings.Contains(pe.Reason, c.want) {
			t.Errorf("%d ranks declared: %v; want two.csv:%d: cell 1: ...%s", c.ranks, err, c.line, c.want)
		}
	}
	if err := ValidateRanks(tb, "two.csv", 0); err == nil || !strings.Contains(err.Error(), "0 ranks declared") {
		t.Errorf("0 ranks declared: %v", err)
	}
}

// PyTorch's v_2_rank_4_stage order (testdata/torch/README.md) runs 3B0 and
// then 3W0; ValidateCSV refuses it as PyTorch's loader does ("Running
// Backward Weight ... without first running Backward Input") and names the
// B that ran the whole backward.
func TestValidateCSVWeightAfterFullBackward(t *testing.T) {
	tb := readCSVFile(t, "testdata/torch/v_2rank_4stage_compute.csv")
	err := ValidateCSV(tb, "v.csv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Cell != 9 || !strings.Contains(pe.Reason, "3W0 after 3B0 at cell 5, which ran the whole backward: 3W0 has no 3I0") {
		t.Errorf("ValidateCSV: %v", err)
	}
}
