package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// twoRank is PyTorch's own 2-rank test schedule (docs/reference.md §3):
// {0: 0F0,0F1,_,0B0,_,0B1; 1: _,1F0,1B0,1F1,1B1,_}.
func twoRank() *Table {
	return &Table{
		Rows: [][]Action{
			{F(0, 0), F(0, 1), {}, B(0, 0), {}, B(0, 1)},
			{{}, F(1, 0), B(1, 0), F(1, 1), B(1, 1), {}},
		},
		Placement:    []int{0, 1},
		Microbatches: 2,
	}
}

func TestValidateAccepts(t *testing.T) {
	split := twoRank()
	split.Rows[1] = []Action{{}, F(1, 0), I(1, 0), W(1, 0), F(1, 1), I(1, 1), W(1, 1)}
	lowered, err := Lower(twoRank())
	if err != nil {
		t.Fatal(err)
	}
	for name, tb := range map[string]*Table{
		"pytorch 2-rank":           twoRank(),
		"split backward on rank 1": split,
		"lowered with SEND/RECV":   lowered,
		"pytorch zb1p fixture":     readCSVFile(t, "testdata/torch/zb1p_2rank_2stagep_compute.csv"),
		"pytorch zb1p comms":       readCSVFile(t, "testdata/torch/zb1p_2rank_2stagep_comms.csv"),
	} {
		if err := tb.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestValidateRejects breaks the 2-rank table one way at a time; each error
// must wrap ErrInvalid and name where and what.
func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		breakT func(*Table)
		want   string
	}{
		{"backward before forward", func(tb *Table) {
			tb.Rows[0] = []Action{F(0, 0), B(0, 1), {}, B(0, 0), {}, F(0, 1)}
		}, "pipeline: rank 0 cell 1 (0B1): backward of microbatch 1 on stage 0 before its forward"},
		{"W before I", func(tb *Table) {
			tb.Rows[1] = []Action{F(1, 0), W(1, 0), I(1, 0), F(1, 1), B(1, 1)}
		}, "pipeline: rank 1 cell 1 (1W0): weight gradient W of microbatch 0 on stage 1 before its input gradient I"},
		{"stage on the wrong rank", func(tb *Table) {
			tb.Rows[1][1] = F(0, 0)
		}, "pipeline: rank 1 cell 1 (0F0): stage 0 is placed on rank 0"},
		{"stage that does not exist", func(tb *Table) {
			tb.Rows[1][5] = F(2, 0)
		}, "pipeline: rank 1 cell 5 (2F0): stage 2 does not exist"},
		{"microbatch that does not exist", func(tb *Table) {
			tb.Rows[1][5] = F(1, 2)
		}, "pipeline: rank 1 cell 5 (1F2): microbatch 2 does not exist"},
		{"forward twice", func(tb *Table) {
			tb.Rows[0][2] = F(0, 1)
		}, "pipeline: rank 0 cell 2 (0F1): microbatch 1 already has a F on stage 0 (cell 1)"},
		{"B and I both", func(tb *Table) {
			tb.Rows[1] = []Action{F(1, 0), B(1, 0), I(1, 0), W(1, 0), F(1, 1), B(1, 1)}
		}, "pipeline: rank 1 cell 2 (1I0): microbatch 0 on stage 1 has both a full backward B and a split one"},
		{"missing backward", func(tb *Table) {
			tb.Rows[0][5] = Action{}
		}, "pipeline: stage 0 microbatch 1: never backwarded"},
		{"missing forward", func(tb *Table) {
			tb.Rows[1] = []Action{{}, F(1, 0), B(1, 0)}
		}, "pipeline: stage 1 microbatch 1: never forwarded"},
		{"I without W", func(tb *Table) {
			tb.Rows[1] = []Action{F(1, 0), I(1, 0), F(1, 1), B(1, 1)}
		}, "pipeline: stage 1 microbatch 0: 1I0 without its weight gradient 1W0"},
		{"placement names a missing rank", func(tb *Table) {
			tb.Placement[1] = 2
		}, "pipeline: placement puts stage 1 on rank 2, but the table has 2 ranks"},
		{"no microbatches", func(tb *Table) {
			tb.Microbatches = 0
		}, "pipeline: the table has 0 microbatches"},
		{"unknown kind", func(tb *Table) {
			tb.Rows[0][2] = Action{Kind: Kind(99)}
		}, "pipeline: rank 0 cell 2 (0Kind(99)0): unknown action kind 99"},
		{"microbatch off its route", func(tb *Table) {
			tb.Routes = []Route{{0, 0}, {1, 1}}
			tb.MicrobatchRoute = []int{0, 1}
		}, "pipeline: rank 0 cell 1 (0F1): microbatch 1 flows through stages 1..1 only"},
		{"route outside the stages", func(tb *Table) {
			tb.Routes = []Route{{0, 2}}
			tb.MicrobatchRoute = []int{0, 0}
		}, "pipeline: route 0 runs from stage 0 to stage 2, outside stages 0..1"},
	} {
		tb := twoRank()
		tc.breakT(tb)
		err := tb.Validate()
		if err == nil {
			t.Errorf("%s: valid, want %q", tc.name, tc.want)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", tc.name, err)
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}
