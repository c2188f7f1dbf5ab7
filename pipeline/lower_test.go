package pipeline

import (
	"strings"
	"testing"
)

// parseRow parses a comma-separated row of actions or fails the test.
func parseRow(t testing.TB, s string) []Action {
	t.Helper()
	var row []Action
	for _, cell := range strings.Split(s, ",") {
		a, err := ParseAction(cell)
		if err != nil {
			t.Fatal(err)
		}
		row = append(row, a)
	}
	return row
}

func TestMergeIW(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// PyTorch's test_merge_bw.
		{"pytorch", "0F0,0F1,0F2,0I0,0I1,0W0,0I2,0W2,0W1", "0F0,0F1,0F2,0I0,0I1,0W0,0B2,0W1"},
		// _merge_bw drops bubbles first, so they do not keep I and W apart.
		{"bubbles between", "0F0,,0I0,,0W0,", "0F0,0B0"},
		// Different stage or microbatch: no merge.
		{"other stage", "0I0,1W0", "0I0,1W0"},
		{"other microbatch", "0I0,0W1", "0I0,0W1"},
		// W before I is not a pair.
		{"reversed", "0W0,0I0", "0W0,0I0"},
	}
	for _, tc := range tests {
		in := &Table{Rows: [][]Action{parseRow(t, tc.in)}}
		before := in.Clone()
		got := MergeIW(in)
		if want := parseRow(t, tc.want); !rowsEqual(got.Rows, [][]Action{want}) {
			t.Errorf("%s: MergeIW = %v, want %v", tc.name, got.Rows[0], want)
		}
		if !rowsEqual(in.Rows, before.Rows) {
			t.Errorf("%s: MergeIW changed its input", tc.name)
		}
	}
}

func TestLowerMatchesPyTorch(t *testing.T) {
	// Expected outputs: PyTorch's test_send_recv (simple_2_rank_2_stage,
	// v_2_rank_4_stage) and test_csv (the fixture, lowered after _merge_bw).
	tests := []struct {
		name, compute, comms string
		merge                bool
	}{
		{"simple 2 rank", "testdata/csv_simple_2rank_compute.csv", "testdata/csv_simple_2rank_comms.csv", false},
		{"v 2 rank 4 stage", "testdata/csv_v_2rank_4stage_compute.csv", "testdata/csv_v_2rank_4stage_comms.csv", false},
		{"zb1p fixture", fixtureCompute, fixtureComms, true},
	}
	for _, tc := range tests {
		in := readCSVFile(t, tc.compute)
		if tc.merge {
			in = MergeIW(in)
		}
		got, err := Lower(in)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		want := readCSVFile(t, tc.comms)
		for r := range want.Rows {
			if r >= len(got.Rows) {
				t.Errorf("%s: rank %d missing", tc.name, r)
				continue
			}
			for i := range max(len(got.Rows[r]), len(want.Rows[r])) {
				var g, w Action
				if i < len(got.Rows[r]) {
					g = got.Rows[r][i]
				}
				if i < len(want.Rows[r]) {
					w = want.Rows[r][i]
				}
				if g != w {
					t.Errorf("%s: rank %d action %d is %q, want %q", tc.name, r, i, g, w)
					break
				}
			}
		}
		if !tablesEqual(got, want) {
			t.Errorf("%s: lowered table differs from %s", tc.name, tc.comms)
		}
	}
}

func TestLowerErrors(t *testing.T) {
	tests := []struct {
		name      string
		rows      []string
		placement []int
		want      []string
	}{
		{
			// Each rank starts with an action whose input the other rank
			// has not produced.
			name: "circular wait", rows: []string{"0B0,0F0", "1F0,1B0"}, placement: []int{0, 1},
			want: []string{"no rank can move", "rank 0 at 0B0 waits for 0RECV_B0 or 1I0 or 1B0", "rank 1 at 1F0 waits for 1RECV_F0 or 0F0"},
		},
		{
			name: "already lowered", rows: []string{"0F0,0SEND_F0", "1RECV_F0,1F0"}, placement: []int{0, 1},
			want: []string{"already has SEND/RECV"},
		},
		{
			name: "stage on the wrong rank", rows: []string{"0F0,1F0", "1B0"}, placement: []int{0, 1},
			want: []string{"rank 0 action 1 (1F0): stage 1 is placed on rank 1"},
		},
		{
			name: "stage outside the placement", rows: []string{"0F0", "2F0"}, placement: []int{0, 1},
			want: []string{"rank 1 action 0 (2F0): stage 2 is not among the 2 stages"},
		},
	}
	for _, tc := range tests {
		tb := &Table{Placement: tc.placement, Microbatches: 1}
		for _, row := range tc.rows {
			tb.Rows = append(tb.Rows, parseRow(t, row))
		}
		_, err := Lower(tb)
		if err == nil {
			t.Errorf("%s: Lower succeeded, want an error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
	}
}

func TestLowerSameRankNeighbours(t *testing.T) {
	// Stages 1 and 2 share rank 1 in the V placement: 1F0 feeds 2F0 and 2B0
	// feeds 1B0 locally, so PyTorch's lowering adds no SEND/RECV between
	// them (only the cross-rank edges 0-1 and 2-3 communicate).
	in := readCSVFile(t, "testdata/csv_v_2rank_4stage_compute.csv")
	got, err := Lower(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range got.Rows {
		for _, a := range row {
			if (a.Kind == SendF && a.Stage == 1) || (a.Kind == RecvF && a.Stage == 2) ||
				(a.Kind == SendB && a.Stage == 2) || (a.Kind == RecvB && a.Stage == 1) {
				t.Errorf("lowered V schedule has %s between stages on the same rank", a)
			}
		}
	}
}

func TestLowerWithoutBubbles(t *testing.T) {
	// The simple 2-rank schedule with its bubbles dropped, as PyTorch's
	// runtime lowers a loaded file. Lowered by hand with the rules of
	// REFERENCE.md §3: rank 1 now reaches 1F0 in the first round, right
	// after rank 0 appended 1RECV_F0, so 1RECV_F1 comes after 1F0.
	want := [][]Action{
		parseRow(t, "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1"),
		parseRow(t, "1RECV_F0,1F0,1RECV_F1,1B0,1SEND_B0,1F1,1B1,1SEND_B1"),
	}
	in := readCSVFile(t, "testdata/csv_simple_2rank_compute.csv")
	got, err := Lower(DropBubbles(in))
	if err != nil {
		t.Fatal(err)
	}
	if !rowsEqual(got.Rows, want) {
		t.Errorf("lowered %v, want %v", got.Rows, want)
	}
	if in.Rows[0][2] != (Action{}) {
		t.Error("DropBubbles changed its input")
	}
}

func BenchmarkLower(b *testing.B) {
	// 8 ranks, 2 stages per rank, 64 microbatches: 3072 compute actions.
	tb, err := Generate("interleaved-zb", Shape{Ranks: 8, Microbatches: 64, Chunks: 2})
	if err != nil {
		b.Fatal(err)
	}
	merged := MergeIW(tb)
	for b.Loop() {
		if _, err := Lower(merged); err != nil {
			b.Fatal(err)
		}
	}
}
