package pipeline

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// csvCells splits schedule CSV text into rows of cell strings, accepting
// "\n" or "\r\n" line ends.
func csvCells(text string) [][]string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		rows = append(rows, strings.Split(line, ","))
	}
	return rows
}

func TestInterleavedZBMatchesPyTorch(t *testing.T) {
	// The fixture is ScheduleInterleavedZeroBubble's compute schedule for 2
	// ranks, 2 stages per rank and 8 microbatches as PyTorch wrote it
	// (docs/reference.md §3); PyTorch's test_csv lowers it after _merge_bw to
	// the comms fixture and simulates it in 113 steps.
	tb, err := Generate("interleaved-zb", Shape{Ranks: 2, Microbatches: 8, Chunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tb); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(fixtureCompute)
	if err != nil {
		t.Fatal(err)
	}
	got, want := csvCells(buf.String()), csvCells(string(fixture))
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("generated CSV\n%s\nwant the fixture\n%s", buf.String(), fixture)
	}
	if !slices.Equal(tb.Placement, LoopPlacement(4, 2)) || tb.Microbatches != 8 || tb.Family != "interleaved-zb" {
		t.Errorf("placement %v, %d microbatches, family %q; want %v, 8, interleaved-zb", tb.Placement, tb.Microbatches, tb.Family, LoopPlacement(4, 2))
	}

	low, err := Lower(MergeIW(tb))
	if err != nil {
		t.Fatal(err)
	}
	if comms := readCSVFile(t, fixtureComms); !rowsEqual(low.Rows, comms.Rows) {
		t.Errorf("lowered schedule differs from %s", fixtureComms)
	}
	steps, err := Lockstep(low)
	if err != nil {
		t.Fatal(err)
	}
	if steps != 113 {
		t.Errorf("%d lockstep steps, want 113", steps)
	}
}

func TestInterleavedZBShapes(t *testing.T) {
	// Invariants of every accepted shape: loop placement, every stage runs
	// F, I and W of each microbatch exactly once, in microbatch order, on
	// its own rank, with F before I before W; and the table lowers (with
	// and without merging I and W) and runs to the end in lock step.
	for p := 1; p <= 4; p++ {
		for v := 1; v <= 3; v++ {
			for m := 1; m <= 12; m++ {
				rounds := max(1, m/p)
				if m%rounds != 0 {
					continue
				}
				tb, err := Generate("interleaved-zb", Shape{Ranks: p, Microbatches: m, Chunks: v})
				if err != nil {
					t.Errorf("P=%d V=%d M=%d: %v", p, v, m, err)
					continue
				}
				checkZBInvariants(t, tb, p, v, m)
			}
		}
	}
}

func checkZBInvariants(t *testing.T, tb *Table, p, v, m int) {
	t.Helper()
	if !slices.Equal(tb.Placement, LoopPlacement(p*v, p)) {
		t.Errorf("P=%d V=%d M=%d: placement %v", p, v, m, tb.Placement)
		return
	}
	for r, row := range tb.Rows {
		next := map[Action]int{} // (kind, stage) -> next microbatch expected
		for _, a := range row {
			if a.IsBubble() {
				continue
			}
			key := Act(a.Kind, a.Stage, 0)
			if tb.Placement[a.Stage] != r || a.Microbatch != next[key] {
				t.Errorf("P=%d V=%d M=%d: rank %d runs %s out of order or off its stages", p, v, m, r, a)
				return
			}
			next[key]++
			if (a.Kind == BackwardInput && next[Act(Forward, a.Stage, 0)] <= a.Microbatch) ||
				(a.Kind == BackwardWeight && next[Act(BackwardInput, a.Stage, 0)] <= a.Microbatch) {
				t.Errorf("P=%d V=%d M=%d: rank %d runs %s before its predecessor", p, v, m, r, a)
			}
		}
		for _, s := range stagesPerRank(tb)[r] {
			for _, k := range []Kind{Forward, BackwardInput, BackwardWeight} {
				if n := next[Act(k, s, 0)]; n != m {
					t.Errorf("P=%d V=%d M=%d: stage %d runs %d %s, want %d", p, v, m, s, n, k, m)
				}
			}
		}
	}
	for _, merge := range []bool{false, true} {
		in := tb
		if merge {
			in = MergeIW(tb)
		}
		low, err := Lower(in)
		if err == nil {
			_, err = Lockstep(low)
		}
		if err != nil {
			t.Errorf("P=%d V=%d M=%d merge=%v: %v", p, v, m, merge, err)
		}
	}
}

func TestInterleavedZBRefuses(t *testing.T) {
	tests := []struct {
		sh   Shape
		want string
	}{
		// PyTorch: n_microbatches % max(1, n_microbatches // pp) != 0.
		{Shape{Ranks: 2, Microbatches: 5}, "microbatches (5) must be a multiple of the number of rounds max(1, microbatches/ranks) = 2"},
		{Shape{Ranks: 4, Microbatches: 9, Chunks: 2}, "= 2"},
		{Shape{Ranks: 0, Microbatches: 4}, "ranks must be at least 1"},
		{Shape{Ranks: 2, Microbatches: 0}, "microbatches must be at least 1"},
		{Shape{Ranks: 2, Microbatches: 4, Chunks: -1}, "chunks (stages per rank) must be at least 1"},
	}
	for _, tc := range tests {
		_, err := Generate("interleaved-zb", tc.sh)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.sh, err, tc.want)
		}
	}
}

func TestInterleavedZBDefaultChunks(t *testing.T) {
	// Chunks 0 means the family's default of 2 stages per rank.
	def, err := Generate("interleaved-zb", Shape{Ranks: 2, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	two, err := Generate("interleaved-zb", Shape{Ranks: 2, Microbatches: 8, Chunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !tablesEqual(def, two) {
		t.Error("Chunks 0 differs from Chunks 2")
	}
}
