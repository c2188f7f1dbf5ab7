package pipeline

import (
	"strings"
	"testing"
)

// TestInterleavedWarmup checks interleaved 1F1B against Megatron-LM and
// docs/reference.md §2: rank r runs 2(P-r-1) + (V-1)P warm-up chunk-forwards
// (at most M·V), so min(that + 1, M·V) forwards precede its first backward,
// and the grid takes M(T_F + T_B) + (P-1)(T_F + T_B)/V steps, where a whole
// stage's T_F = T_B = V unit chunk-steps: 2MV + 2(P-1).
func TestInterleavedWarmup(t *testing.T) {
	for _, sh := range []Shape{
		{Ranks: 4, Microbatches: 8, Chunks: 2},
		{Ranks: 4, Microbatches: 4, Chunks: 3},
		{Ranks: 2, Microbatches: 6, Chunks: 4},
		{Ranks: 3, Microbatches: 12, Chunks: 2},
		{Ranks: 1, Microbatches: 3, Chunks: 2},
	} {
		tb := mustGenerate(t, "interleaved-1f1b", sh)
		p, m, v := sh.Ranks, sh.Microbatches, sh.Chunks
		for r, row := range tb.Rows {
			warmup := min(2*(p-r-1)+(v-1)*p, m*v)
			if got := statsOf(row).warmup; got != min(warmup+1, m*v) {
				t.Errorf("%+v rank %d: %d forwards before the first backward, want warm-up %d and one more", sh, r, got, warmup)
			}
		}
		if got, want := gridLength(tb), 2*m*v+2*(p-1); got != want {
			t.Errorf("%+v: %d steps, want 2MV + 2(P-1) = %d", sh, got, want)
		}
	}
}

// TestInterleavedMicrobatchCounts checks that interleaved 1F1B takes the
// microbatch counts PyTorch's ScheduleInterleaved1F1B takes and refuses the
// others: PyTorch (schedules.py) runs max(1, M // P) rounds and raises
// unless M % rounds == 0, so P = 4 builds M = 3, 10 and 15 and refuses M = 9.
// Every accepted shape must lower and complete in PyTorch's lockstep check.
func TestInterleavedMicrobatchCounts(t *testing.T) {
	for p := 1; p <= 5; p++ {
		for m := 1; m <= 16; m++ {
			for v := 1; v <= 3; v++ {
				sh := Shape{Ranks: p, Microbatches: m, Chunks: v}
				rounds := max(1, m/p)
				tb, err := Generate("interleaved-1f1b", sh)
				if m%rounds != 0 {
					if err == nil || !strings.Contains(err.Error(), "multiple of the number of rounds") {
						t.Errorf("%+v: %v, want the rounds constraint named (PyTorch refuses M = %d with %d rounds)", sh, err, m, rounds)
					}
					continue
				}
				if err != nil {
					t.Errorf("%+v: %v, but PyTorch builds it (%d rounds of %d)", sh, err, rounds, m/rounds)
					continue
				}
				low, err := Lower(DropBubbles(tb))
				if err != nil {
					t.Errorf("%+v: lower: %v", sh, err)
					continue
				}
				if _, err := Lockstep(low); err != nil {
					t.Errorf("%+v: lockstep: %v", sh, err)
				}
			}
		}
	}
	for _, m := range []int{3, 10, 15} {
		if _, err := Generate("interleaved-1f1b", Shape{Ranks: 4, Microbatches: m, Chunks: 2}); err != nil {
			t.Errorf("P = 4, V = 2, M = %d: %v; PyTorch builds it", m, err)
		}
	}
}

// TestLoopedBFSOrderAndLength checks looped BFS against PyTorch's
// ScheduleLoopedBFS order (every forward of a chunk before the next chunk,
// backwards from the last chunk, microbatches in reverse) and its bubble,
// which for M >= P is that of interleaving, (P-1)(T_F + T_B)/V with
// whole-stage times of V chunk-steps (arXiv 2211.05953): 2MV + 2(P-1) steps.
func TestLoopedBFSOrderAndLength(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8, Chunks: 2}, {Ranks: 3, Microbatches: 3, Chunks: 3}, {Ranks: 2, Microbatches: 5, Chunks: 1}} {
		tb := mustGenerate(t, "looped-bfs", sh)
		p, m, v := sh.Ranks, sh.Microbatches, sh.Chunks
		for r, row := range tb.Rows {
			order := withoutBubbles(row)
			for c := range v {
				for mb := range m {
					if got, want := order[c*m+mb], F(c*p+r, mb); got != want {
						t.Fatalf("%+v rank %d: action %d is %s, want %s", sh, r, c*m+mb, got, want)
					}
					if got, want := order[m*v+c*m+mb], B((v-1-c)*p+r, m-1-mb); got != want {
						t.Fatalf("%+v rank %d: action %d is %s, want %s", sh, r, m*v+c*m+mb, got, want)
					}
				}
			}
		}
		if got, want := gridLength(tb), 2*m*v+2*(p-1); got != want {
			t.Errorf("%+v: %d steps, want 2MV + 2(P-1) = %d", sh, got, want)
		}
	}
}
