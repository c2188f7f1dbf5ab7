package pipeline

import (
	"bytes"
	"os"
	"testing"
)

// TestPipeDreamGridLength checks the measured step counts of docs/reference.md
// §1.2: T = 2N + 2S - 2 for NOAM = S (N < S included) and T = 2SN for
// NOAM = 1.
func TestPipeDreamGridLength(t *testing.T) {
	for _, tc := range []struct{ s, n, noam, want int }{
		{4, 12, 0, 2*12 + 2*4 - 2},
		{4, 12, 4, 2*12 + 2*4 - 2},
		{2, 10, 0, 2*10 + 2*2 - 2},
		{8, 30, 8, 2*30 + 2*8 - 2},
		{8, 3, 8, 2*3 + 2*8 - 2}, // N < S
		{5, 1, 5, 2*1 + 2*5 - 2},
		{1, 6, 1, 2 * 1 * 6},
		{4, 12, 1, 2 * 4 * 12},
		{6, 5, 1, 2 * 6 * 5},
	} {
		tb := mustGenerate(t, "pipedream", Shape{Ranks: tc.s, Microbatches: tc.n, NOAM: tc.noam})
		if got := gridLength(tb); got != tc.want {
			t.Errorf("S%d N%d NOAM %d: %d steps, want %d", tc.s, tc.n, tc.noam, got, tc.want)
		}
		wantNOAM := tc.noam
		if wantNOAM == 0 {
			wantNOAM = tc.s
		}
		if tb.Update != PerBackward || tb.NOAM != wantNOAM {
			t.Errorf("S%d N%d: update %s NOAM %d, want per-backward and %d", tc.s, tc.n, tb.Update, tb.NOAM, wantNOAM)
		}
	}
}

// TestPipeDreamPaperRendering compares the paper-style rendering of S = 4,
// N = 12, first 30 steps, with the text of docs/reference.md §1.2 (copied into
// the golden file).
func TestPipeDreamPaperRendering(t *testing.T) {
	tb := mustGenerate(t, "pipedream", Shape{Ranks: 4, Microbatches: 12})
	var got bytes.Buffer
	if err := Render(&got, tb, RenderOptions{MaxColumns: 30, Style: PaperStyle}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/gen_pipedream_s4_n12.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("rendering differs from docs/reference.md §1.2:\ngot:\n%s\nwant:\n%s", got.String(), want)
	}
}

// TestPipeDreamAdmission checks the NOAM cap directly on the grid: at the
// end of every step, at most NOAM microbatches have started F on stage 0
// without finishing B there.
func TestPipeDreamAdmission(t *testing.T) {
	for _, noam := range []int{1, 2, 3, 5} {
		tb := mustGenerate(t, "pipedream", Shape{Ranks: 5, Microbatches: 17, NOAM: noam})
		inFlight := 0
		for c, a := range tb.Rows[0] {
			switch a.Kind {
			case Forward:
				inFlight++
			case Backward:
				inFlight--
			}
			if inFlight > noam {
				t.Fatalf("NOAM %d: %d in flight on stage 0 after step %d", noam, inFlight, c)
			}
		}
	}
}
