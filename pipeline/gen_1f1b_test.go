package pipeline

import "testing"

// TestOneFOneBWarmupAndInFlight checks 1F1B against Megatron-LM and
// docs/reference.md §2: rank r runs min(P-r-1, M) forwards before its first
// backward, holds at most P-r microbatches (min(P-r, M) at its peak), and
// the unit-time grid takes (M + P - 1)(T_F + T_B) = 2(M + P - 1) steps.
func TestOneFOneBWarmupAndInFlight(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8}, {Ranks: 4, Microbatches: 2}, {Ranks: 1, Microbatches: 3}, {Ranks: 6, Microbatches: 13}} {
		tb := mustGenerate(t, "1f1b", sh)
		p, m := sh.Ranks, sh.Microbatches
		for r, row := range tb.Rows {
			st := statsOf(row)
			// Before the first backward run the P-r-1 warm-up forwards
			// and the first steady forward: min(P-r, M) in all.
			if warmup := min(p-r-1, m); st.warmup != min(warmup+1, m) {
				t.Errorf("P%d M%d rank %d: %d forwards before the first backward, want warm-up %d and one more", p, m, r, st.warmup, warmup)
			}
			if want := min(p-r, m); st.peak != want {
				t.Errorf("P%d M%d rank %d: peak %d in flight, want min(P-r, M) = %d", p, m, r, st.peak, want)
			}
		}
		if got, want := gridLength(tb), 2*(m+p-1); got != want {
			t.Errorf("P%d M%d: %d steps, want 2(M+P-1) = %d", p, m, got, want)
		}
	}
}

// TestGPipeHoldsAllMicrobatches checks GPipe against docs/reference.md §2: every
// rank holds all M microbatches at its peak, runs all M forwards before a
// backward, and the grid takes 2(M + P - 1) steps.
func TestGPipeHoldsAllMicrobatches(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8}, {Ranks: 3, Microbatches: 1}, {Ranks: 1, Microbatches: 4}} {
		tb := mustGenerate(t, "gpipe", sh)
		for r, row := range tb.Rows {
			if st := statsOf(row); st.peak != sh.Microbatches || st.warmup != sh.Microbatches {
				t.Errorf("%+v rank %d: peak %d, warm-up %d, want M = %d for both", sh, r, st.peak, st.warmup, sh.Microbatches)
			}
		}
		if got, want := gridLength(tb), 2*(sh.Microbatches+sh.Ranks-1); got != want {
			t.Errorf("%+v: %d steps, want 2(M+P-1) = %d", sh, got, want)
		}
	}
}
