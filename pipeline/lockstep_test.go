package pipeline

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLockstepSteps(t *testing.T) {
	// Step counts asserted by PyTorch's test_send_recv (11 and 24) and
	// test_csv (113), docs/reference.md §3.
	tests := []struct {
		name  string
		comms func(t *testing.T) *Table
		want  int
	}{
		{"simple 2 rank", fromFile("testdata/csv_simple_2rank_comms.csv"), 11},
		{"v 2 rank 4 stage", fromFile("testdata/csv_v_2rank_4stage_comms.csv"), 24},
		{"zb1p fixture", fromFile(fixtureComms), 113},
		// Stepped by hand from the lowering in TestLowerWithoutBubbles: rank
		// 1's 1F0 runs at step 2 instead of 4, which saves one step.
		{"simple 2 rank without bubbles", func(t *testing.T) *Table {
			low, err := Lower(DropBubbles(readCSVFile(t, "testdata/csv_simple_2rank_compute.csv")))
			if err != nil {
				t.Fatal(err)
			}
			return low
		}, 10},
		{"zb1p fixture lowered here", func(t *testing.T) *Table {
			low, err := Lower(MergeIW(readCSVFile(t, fixtureCompute)))
			if err != nil {
				t.Fatal(err)
			}
			return low
		}, 113},
	}
	for _, tc := range tests {
		got, err := Lockstep(tc.comms(t))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %d steps, want %d", tc.name, got, tc.want)
		}
	}
}

func fromFile(path string) func(t *testing.T) *Table {
	return func(t *testing.T) *Table { return readCSVFile(t, path) }
}

func TestLockstepScheduleGrid(t *testing.T) {
	// The simple 2-rank schedule stepped by hand with the rules of
	// docs/reference.md §3 ("." = idle). Step 1: rank 1's RECV_F0 runs in the
	// same step as rank 0's SEND_F0, which ran earlier in that step. Steps
	// 6 and 9: rank 0 is idle in the first pass and runs its RECV_B in the
	// second pass, after rank 1's SEND_B in the same step.
	want := [][]string{
		{"0F0", "0SEND_F0", "0F1", "0SEND_F1", ".", ".", "0RECV_B0", "0B0", ".", "0RECV_B1", "0B1"},
		{".", "1RECV_F0", ".", "1RECV_F1", "1F0", "1B0", "1SEND_B0", "1F1", "1B1", "1SEND_B1"},
	}
	g, err := LockstepSchedule(readCSVFile(t, "testdata/csv_simple_2rank_comms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range g.Rows {
		if got := cellStrings(row); !slices.Equal(got, want[r]) {
			t.Errorf("rank %d: %v, want %v", r, got, want[r])
		}
	}
}

func TestLockstepSingleRank(t *testing.T) {
	// On one rank nothing waits for another rank, so every action takes
	// one step: the step count is the number of actions, bubbles ignored.
	tb := &Table{Rows: [][]Action{parseRow(t, "0F0,,1F0,1I0,1W0,0I0,0W0,0REDUCE_GRAD,1REDUCE_GRAD")}, Placement: []int{0, 0}, Microbatches: 1}
	got, err := Lockstep(tb)
	if err != nil {
		t.Fatal(err)
	}
	if got != 8 {
		t.Errorf("%d steps, want 8", got)
	}
}

func TestLockstepDeadlock(t *testing.T) {
	tests := []struct {
		name    string
		rows    []string
		step    int
		blocked []Blocked
	}{
		{
			// Both ranks start by receiving what the other sends later.
			name: "receive first", rows: []string{"0RECV_B0,0F0,0SEND_F0,0B0", "1RECV_F0,1F0,1B0,1SEND_B0"},
			step: 0,
			blocked: []Blocked{
				{Rank: 0, Action: Act(RecvB, 0, 0), WaitsFor: []Action{Act(SendB, 1, 0)}},
				{Rank: 1, Action: Act(RecvF, 1, 0), WaitsFor: []Action{Act(SendF, 0, 0)}},
			},
		},
		{
			// Rank 1 never sends microbatch 1 back; rank 0 finishes its
			// forwards (steps 0-3) and then waits.
			name: "missing send", rows: []string{"0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B1,0B1", "1RECV_F0,1RECV_F1,1F1,1B1"},
			step: 6,
			blocked: []Blocked{
				{Rank: 0, Action: Act(RecvB, 0, 1), WaitsFor: []Action{Act(SendB, 1, 1)}},
			},
		},
	}
	for _, tc := range tests {
		tb := &Table{Placement: []int{0, 1}, Microbatches: 2}
		for _, row := range tc.rows {
			tb.Rows = append(tb.Rows, parseRow(t, row))
		}
		_, err := Lockstep(tb)
		if !errors.Is(err, ErrDeadlock) {
			t.Errorf("%s: error %v, want one wrapping ErrDeadlock", tc.name, err)
			continue
		}
		var de *DeadlockError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %T, want *DeadlockError", tc.name, err)
			continue
		}
		if de.Step != tc.step {
			t.Errorf("%s: deadlock at step %d, want %d", tc.name, de.Step, tc.step)
		}
		if !slices.EqualFunc(de.Blocked, tc.blocked, func(a, b Blocked) bool {
			return a.Rank == b.Rank && a.Action == b.Action && slices.Equal(a.WaitsFor, b.WaitsFor)
		}) {
			t.Errorf("%s: blocked %+v, want %+v", tc.name, de.Blocked, tc.blocked)
		}
		for _, b := range tc.blocked {
			if s := b.Action.String(); !strings.Contains(err.Error(), s) {
				t.Errorf("%s: message %q does not name %s", tc.name, err, s)
			}
		}
	}
}

func TestLockstepNeedsLowering(t *testing.T) {
	tb := readCSVFile(t, "testdata/csv_simple_2rank_compute.csv")
	_, err := Lockstep(tb)
	if err == nil || errors.Is(err, ErrDeadlock) || !strings.Contains(err.Error(), "lower it first") {
		t.Errorf("Lockstep on a compute-only 2-rank table: %v, want an error asking to lower it", err)
	}
}

func TestLockstepOverlap(t *testing.T) {
	// Rank 1 holds stages 1 and 2 of a V placement; its OVERLAP_F_B runs
	// 1F1 together with 2B0. Stepped by hand with the rules of docs/reference.md
	// §3: rank 1 runs 2SEND_F0 at step 4 (rank 0's 3RECV_F0 follows in the
	// second pass), receives 1RECV_F1 at 5, waits for 2RECV_B0 until step 7
	// (rank 0 runs 3SEND_B0 earlier in that step), runs the overlap at 8,
	// 1B0 at 9 (fed locally by the overlap's 2B0) and 1SEND_B0 at 10, where
	// rank 0's 0RECV_B0 runs in the second pass; rank 0 runs 0B0 at step
	// 11: 12 steps.
	tb := &Table{Placement: []int{0, 1, 1, 0}, Microbatches: 2}
	for _, row := range []string{
		"0F0,0SEND_F0,0F1,0SEND_F1,3RECV_F0,3F0,3B0,3SEND_B0,0RECV_B0,0B0",
		"1RECV_F0,1F0,2F0,2SEND_F0,1RECV_F1,2RECV_B0,(1F1;2B0)OVERLAP_F_B,1B0,1SEND_B0",
	} {
		tb.Rows = append(tb.Rows, parseRow(t, row))
	}
	got, err := Lockstep(tb)
	if err != nil {
		t.Fatal(err)
	}
	if got != 12 {
		t.Errorf("%d steps, want 12", got)
	}
}

func TestLockstepChimera(t *testing.T) {
	// Chimera with P = 2, M = 2 (chimeraP2M2), lowered as TestLowerChimera
	// derives, stepped by hand with the rules of docs/reference.md §3, a RECV
	// waiting for the SEND of the previous (RECV_F) or next (RECV_B) stage
	// of its microbatch's route:
	//   step 0: rank 0 runs 0F0 (first of route 0..1); rank 1's 1RECV_F0
	//           waits for 0SEND_F0.
	//   step 1: 0SEND_F0, then 1RECV_F0 after it in the same step.
	//   step 2: rank 0's 3RECV_F1 waits for 2SEND_F1; rank 1 runs 2F1
	//           (first of route 2..3).
	//   step 3: rank 0 still waits; rank 1 runs 2SEND_F1, and rank 0 runs
	//           3RECV_F1 in the second pass.
	//   step 4: 3F1 and 1F0 (their RECV_F ran).
	//   step 5: 3B1 (last of route 2..3); rank 1's 2RECV_B1 waits for
	//           3SEND_B1.
	//   step 6: 3SEND_B1, then 2RECV_B1.
	//   step 7: rank 0's 0RECV_B0 waits for 1SEND_B0; rank 1 runs 1B0 (last
	//           of route 0..1).
	//   step 8: rank 1 runs 1SEND_B0, and rank 0 runs 0RECV_B0 in the
	//           second pass.
	//   step 9: 0B0 and 2B1: 10 steps.
	want := [][]string{
		{"0F0", "0SEND_F0", ".", "3RECV_F1", "3F1", "3B1", "3SEND_B1", ".", "0RECV_B0", "0B0"},
		{".", "1RECV_F0", "2F1", "2SEND_F1", "1F0", ".", "2RECV_B1", "1B0", "1SEND_B0", "2B1"},
	}
	low, err := Lower(chimeraP2M2(t))
	if err != nil {
		t.Fatal(err)
	}
	g, err := LockstepSchedule(low)
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range g.Rows {
		if got := cellStrings(row); !slices.Equal(got, want[r]) {
			t.Errorf("rank %d: %v, want %v", r, got, want[r])
		}
	}
	if steps, err := Lockstep(low); err != nil || steps != 10 {
		t.Errorf("Lockstep: %d, %v; want 10 steps", steps, err)
	}
}

// TestLockstepChimeraRecvOffRoute checks that a RECV_F at the first stage
// of its microbatch's route waits for a SEND no rank can run: Chimera's up
// microbatch 1 enters at stage 2, so 2RECV_F1 deadlocks even though stage
// 1 exists and lives on the same rank.
func TestLockstepChimeraRecvOffRoute(t *testing.T) {
	tb := chimeraP2M2(t)
	tb.Rows = [][]Action{parseRow(t, "0F0"), parseRow(t, "2RECV_F1")}
	_, err := Lockstep(tb)
	var de *DeadlockError
	if !errors.As(err, &de) || len(de.Blocked) != 1 || de.Blocked[0].Rank != 1 {
		t.Fatalf("%v, want a deadlock of rank 1", err)
	}
	if want := []Action{Act(SendF, 1, 1)}; !slices.Equal(de.Blocked[0].WaitsFor, want) {
		t.Errorf("rank 1 waits for %v, want %v (a stage before the route, which never sends)", de.Blocked[0].WaitsFor, want)
	}
}

func BenchmarkLockstep(b *testing.B) {
	// 8 ranks, 2 stages per rank, 64 microbatches: 3072 compute actions.
	tb, err := Generate("interleaved-zb", Shape{Ranks: 8, Microbatches: 64, Chunks: 2})
	if err != nil {
		b.Fatal(err)
	}
	low, err := Lower(MergeIW(tb))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Lockstep(low); err != nil {
			b.Fatal(err)
		}
	}
}

// cellStrings writes a row's actions as PyTorch does, a bubble as ".".
func cellStrings(row []Action) []string {
	out := make([]string, len(row))
	for i, a := range row {
		out[i] = a.String()
		if a.IsBubble() {
			out[i] = "."
		}
	}
	return out
}
