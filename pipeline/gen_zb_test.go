package pipeline

import "testing"

// TestZeroBubbleHandcrafted checks ZB-H1 and ZB-H2 against the Zero Bubble
// paper (arXiv 2401.10241, §3.1, Figure 3, and docs/reference.md §2) with
// T_F = T_B = T_W = 1 and M >= 2P-1:
//   - peak in-flight microbatches (F done, W not done) on every rank: P for
//     ZB-H1, the peak of 1F1B; 2P-1 for ZB-H2;
//   - ZB-H1's bubble is (P-1)(T_F + T_B - T_W) = P-1, so the grid takes
//     3M + P - 1 steps;
//   - ZB-H2's bubble is (P-1)(T_F + T_B - 2T_W) = 0: no rank idles between
//     its first and last action (the paper's parallelogram).
func TestZeroBubbleHandcrafted(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8}, {Ranks: 3, Microbatches: 10}, {Ranks: 5, Microbatches: 9}, {Ranks: 1, Microbatches: 4}} {
		p, m := sh.Ranks, sh.Microbatches
		h1 := mustGenerate(t, "zb-h1", sh)
		h2 := mustGenerate(t, "zb-h2", sh)
		for r := range p {
			if got := statsOf(h1.Rows[r]).peak; got != p {
				t.Errorf("zb-h1 %+v rank %d: peak %d in flight, want P = %d", sh, r, got, p)
			}
			st := statsOf(h2.Rows[r])
			if st.peak != 2*p-1 {
				t.Errorf("zb-h2 %+v rank %d: peak %d in flight, want 2P-1 = %d", sh, r, st.peak, 2*p-1)
			}
			if st.gaps != 0 {
				t.Errorf("zb-h2 %+v rank %d: %d bubbles between its first and last action, want 0", sh, r, st.gaps)
			}
		}
		if got, want := gridLength(h1), 3*m+p-1; got != want {
			t.Errorf("zb-h1 %+v: %d steps, want 3M + P - 1 = %d", sh, got, want)
		}
	}
}

// TestZeroBubbleFewMicrobatches checks the caps with fewer microbatches than
// they allow: a rank can hold at most all M.
func TestZeroBubbleFewMicrobatches(t *testing.T) {
	for _, tc := range []struct {
		family string
		cap    func(p int) int
	}{
		{"zb-h1", func(p int) int { return p }},
		{"zb-h2", func(p int) int { return 2*p - 1 }},
	} {
		for _, sh := range []Shape{{Ranks: 4, Microbatches: 1}, {Ranks: 4, Microbatches: 3}, {Ranks: 4, Microbatches: 5}} {
			tb := mustGenerate(t, tc.family, sh)
			for r, row := range tb.Rows {
				if got, want := statsOf(row).peak, min(tc.cap(sh.Ranks), sh.Microbatches); got != want {
					t.Errorf("%s %+v rank %d: peak %d, want min(cap, M) = %d", tc.family, sh, r, got, want)
				}
			}
		}
	}
}

// TestZeroBubbleV checks ZB-V against the Zero Bubble paper (§6 and
// docs/reference.md §2): with T_F = T_B = T_W and M >= 2P-1 no rank idles
// between its first and last action, so rank r, whose first forward comes r
// steps in, ends 6M steps later and the grid takes 6M + P - 1 steps; and a
// rank holds 2P chunk activations at its peak, i.e. P·M_B with M_B the
// activations of a whole stage (two chunks), the peak of 1F1B.
func TestZeroBubbleV(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8}, {Ranks: 2, Microbatches: 6}, {Ranks: 3, Microbatches: 5}} {
		tb := mustGenerate(t, "zb-v", sh)
		for r, row := range tb.Rows {
			st := statsOf(row)
			if st.gaps != 0 {
				t.Errorf("%+v rank %d: %d bubbles between its first and last action, want 0", sh, r, st.gaps)
			}
			if st.peak != 2*sh.Ranks {
				t.Errorf("%+v rank %d: peak %d chunk activations, want 2P = %d", sh, r, st.peak, 2*sh.Ranks)
			}
		}
		if got, want := gridLength(tb), 6*sh.Microbatches+sh.Ranks-1; got != want {
			t.Errorf("%+v: %d steps, want 6M + P - 1 = %d", sh, got, want)
		}
	}
}

// TestZBH1IsPyTorchZB1P cross-checks ZB-H1 with PyTorch's
// ScheduleInterleavedZeroBubble on one stage per rank (the interleaved-zb
// family, written independently from PyTorch's code): both run the same
// actions in the same order on every rank; only the bubbles differ, since
// PyTorch delays forwards only.
func TestZBH1IsPyTorchZB1P(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 8, Chunks: 1}, {Ranks: 3, Microbatches: 3, Chunks: 1}, {Ranks: 5, Microbatches: 12, Chunks: 1}} {
		h1 := mustGenerate(t, "zb-h1", sh)
		zb1p := mustGenerate(t, "interleaved-zb", sh)
		for r := range h1.Rows {
			if got, want := withoutBubbles(h1.Rows[r]), withoutBubbles(zb1p.Rows[r]); !rowsEqual([][]Action{got}, [][]Action{want}) {
				t.Errorf("%+v rank %d:\n zb-h1 %v\n  zb1p %v", sh, r, got, want)
			}
		}
	}
}

func withoutBubbles(row []Action) []Action {
	var out []Action
	for _, a := range row {
		if !a.IsBubble() {
			out = append(out, a)
		}
	}
	return out
}
