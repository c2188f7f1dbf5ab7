package pipeline

import (
	"errors"
	"fmt"
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
		// malformed: the error wraps ErrMalformed, which the schedules
		// measure reads as "no lockstep level" rather than a failed run.
		malformed bool
	}{
		{
			// Each rank starts with an action whose input the other rank
			// has not produced.
			name: "circular wait", rows: []string{"0B0,0F0", "1F0,1B0"}, placement: []int{0, 1},
			want:      []string{"no rank can move", "rank 0 at 0B0 waits for 0RECV_B0 or 1I0 or 1B0", "rank 1 at 1F0 waits for 1RECV_F0 or 0F0"},
			malformed: true,
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
		if tc.malformed && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %q does not wrap ErrMalformed", tc.name, err)
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
	// docs/reference.md §3: rank 1 now reaches 1F0 in the first round, right
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

// chimeraP2M2 is Chimera with P = 2 ranks and M = 2 microbatches, built by
// hand from the rule in gen_chimera.go (arXiv 2107.06925): microbatch 0
// takes the down pipeline (stage 0 on rank 0, stage 1 on rank 1),
// microbatch 1 the up pipeline (stage 2 on rank 1, stage 3 on rank 0); the
// j = 0 microbatch of each runs F on its pipeline stage s at step s and B
// at step 2 + 1 - s, which gives these rows without bubbles.
func chimeraP2M2(t *testing.T) *Table {
	return &Table{
		Rows:            [][]Action{parseRow(t, "0F0,3F1,3B1,0B0"), parseRow(t, "2F1,1F0,1B0,2B1")},
		Placement:       []int{0, 1, 1, 0},
		Microbatches:    2,
		Routes:          []Route{{0, 1}, {2, 3}},
		MicrobatchRoute: []int{0, 1},
	}
}

func TestChimeraP2M2IsTheGenerated(t *testing.T) {
	got := mustGenerate(t, "chimera", Shape{Ranks: 2, Microbatches: 2})
	if want := chimeraP2M2(t); !rowsEqual(got.Rows, want.Rows) {
		t.Errorf("generated %v, want the hand-built %v", got.Rows, want.Rows)
	}
}

func TestLowerChimera(t *testing.T) {
	// Lowered by hand with the rules of docs/reference.md §3 along each
	// microbatch's route (ranks visited 0, 1 per round):
	//   round 1: rank 0 takes 0F0 (first stage of route 0..1) and, stage 1
	//            being on rank 1, adds 0SEND_F0 and gives rank 1 1RECV_F0;
	//            rank 1 takes 2F1 (first of route 2..3), adds 2SEND_F1 and
	//            gives rank 0 3RECV_F1.
	//   round 2: rank 0 takes 3F1 (it holds 3RECV_F1); stage 3 ends route
	//            2..3, so nothing is sent on. Rank 1 takes 1F0 (1RECV_F0);
	//            stage 1 ends route 0..1, so nothing goes to stage 2 even
	//            though rank 1 holds it too.
	//   round 3: rank 0 takes 3B1 (last of its route) and sends it back to
	//            stage 2 on rank 1 (3SEND_B1, 2RECV_B1); rank 1 takes 1B0 and
	//            sends it to stage 0 (1SEND_B0, 0RECV_B0).
	//   round 4: 0B0 and 2B1 take their RECV_B; both start their routes, so
	//            nothing more is sent.
	want := [][]Action{
		parseRow(t, "0F0,0SEND_F0,3RECV_F1,3F1,3B1,3SEND_B1,0RECV_B0,0B0"),
		parseRow(t, "1RECV_F0,2F1,2SEND_F1,1F0,2RECV_B1,1B0,1SEND_B0,2B1"),
	}
	got, err := Lower(chimeraP2M2(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rowsEqual(got.Rows, want) {
		t.Errorf("lowered %v, want %v", got.Rows, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("lowered table: %v", err)
	}
}

func TestLowerRouteErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Table)
		want   string
	}{
		{"action off its route", func(tb *Table) { tb.Rows[0][0] = F(0, 1) }, "rank 0 action 0 (0F1): microbatch 1 flows through stages 2..3 only"},
		{"microbatch without a route", func(tb *Table) { tb.MicrobatchRoute = []int{0} }, "1 microbatch routes for 2 microbatches"},
		{"route off the stages", func(tb *Table) { tb.Routes[1].Last = 4 }, "route 1 runs from stage 2 to stage 4, outside stages 0..3"},
		{"microbatch outside the table", func(tb *Table) { tb.Rows[1][0] = F(2, 5) }, "rank 1 action 0 (2F5): microbatch 5 does not exist"},
	}
	for _, tc := range tests {
		tb := chimeraP2M2(t)
		tc.modify(tb)
		if _, err := Lower(tb); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pipeline: lower: ") {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

func TestNextPrevStage(t *testing.T) {
	chimera := mustGenerate(t, "chimera", Shape{Ranks: 2, Microbatches: 2})
	plain := &Table{Placement: []int{0, 1, 0}, Microbatches: 1}
	tests := []struct {
		name           string
		tb             *Table
		m, s           int
		next, prev     int
		hasNext, hasPr bool
	}{
		// Chimera P = 2: microbatch 0 on stages 0..1, microbatch 1 on 2..3.
		{"down first", chimera, 0, 0, 1, -1, true, false},
		{"down last", chimera, 0, 1, -1, 0, false, true},
		{"up first", chimera, 1, 2, 3, -1, true, false},
		{"up last", chimera, 1, 3, -1, 2, false, true},
		{"off the route", chimera, 0, 2, -1, -1, false, false},
		{"unknown microbatch", chimera, 7, 2, -1, -1, false, false},
		// Without Routes every microbatch runs over stages 0..2.
		{"plain first", plain, 5, 0, 1, -1, true, false},
		{"plain middle", plain, 5, 1, 2, 0, true, true},
		{"plain last", plain, 5, 2, -1, 1, false, true},
	}
	for _, tc := range tests {
		next, hasNext := tc.tb.NextStage(tc.m, tc.s)
		prev, hasPrev := tc.tb.PrevStage(tc.m, tc.s)
		if next != tc.next || hasNext != tc.hasNext || prev != tc.prev || hasPrev != tc.hasPr {
			t.Errorf("%s: next %d %v, prev %d %v; want %d %v, %d %v", tc.name, next, hasNext, prev, hasPrev, tc.next, tc.hasNext, tc.prev, tc.hasPr)
		}
	}
}

// TestLowerSparseMicrobatches lowers a table whose microbatch indices are
// far apart (0, -3 and 1<<40), which Lower numbers with a lookup table
// instead of a dense range. Lowering only ever compares microbatch indices
// for equality, so renaming them must commute with it: the result is the
// simple 2-rank lowering with the same renaming.
func TestLowerSparseMicrobatches(t *testing.T) {
	rename := map[int]int{0: -3, 1: 1 << 40}
	renamed := func(tb *Table) *Table {
		out := tb.Clone()
		for _, row := range out.Rows {
			for i, a := range row {
				if a.Kind.HasMicrobatch() {
					row[i].Microbatch = rename[a.Microbatch]
				}
			}
		}
		return out
	}
	in := readCSVFile(t, "testdata/csv_simple_2rank_compute.csv")
	want, err := Lower(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Lower(renamed(in))
	if err != nil {
		t.Fatal(err)
	}
	if !rowsEqual(got.Rows, renamed(want).Rows) {
		t.Errorf("lowered %v, want %v", got.Rows, renamed(want).Rows)
	}
	wantSteps, err := Lockstep(want)
	if err != nil {
		t.Fatal(err)
	}
	if steps, err := Lockstep(got); err != nil || steps != wantSteps {
		t.Errorf("lockstep of the renamed table: %d, %v; want %d", steps, err, wantSteps)
	}
}

// NextStage and PrevStage follow a microbatch's route: in Chimera with two
// ranks, microbatch 0 goes down stages 0..1 and microbatch 1 up stages
// 2..3, so stage 1 is the end of the line for microbatch 0 even though
// stage 2 sits on the same rank.
func ExampleTable_NextStage() {
	t, err := Generate("chimera", Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for m := range t.Microbatches {
		rt := t.RouteOf(m)
		for s := rt.First; s <= rt.Last; s++ {
			next, ok := t.NextStage(m, s)
			prev, okPrev := t.PrevStage(m, s)
			fmt.Printf("microbatch %d stage %d (rank %d): next %d %v, previous %d %v\n", m, s, t.Rank(s), next, ok, prev, okPrev)
		}
	}
	// Output:
	// microbatch 0 stage 0 (rank 0): next 1 true, previous -1 false
	// microbatch 0 stage 1 (rank 1): next -1 false, previous 0 true
	// microbatch 1 stage 2 (rank 1): next 3 true, previous -1 false
	// microbatch 1 stage 3 (rank 0): next -1 false, previous 2 true
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
