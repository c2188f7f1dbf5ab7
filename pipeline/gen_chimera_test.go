package pipeline

import (
	"strings"
	"testing"
)

// TestChimeraUnits checks Chimera's construction (gen_chimera.go, after
// arXiv 2107.06925): two routes, each microbatch on its pipeline's P
// stages, every action at the step its unit's timing gives it, and with
// T_F = T_B = 1 each rank idle P-2 steps of the 2M + P - 2 (the paper's
// D-2 bubbles per worker).
func TestChimeraUnits(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 4}, {Ranks: 4, Microbatches: 12}, {Ranks: 2, Microbatches: 6}, {Ranks: 6, Microbatches: 12}} {
		tb := mustGenerate(t, "chimera", sh)
		p, m := sh.Ranks, sh.Microbatches
		if len(tb.Routes) != 2 || tb.Stages() != 2*p {
			t.Fatalf("%+v: %d routes over %d stages, want 2 over 2P", sh, len(tb.Routes), tb.Stages())
		}
		length := gridLength(tb)
		if want := 2*m + p - 2; length != want {
			t.Errorf("%+v: %d steps, want 2M + P - 2 = %d", sh, length, want)
		}
		for r, row := range tb.Rows {
			busy := 0
			for _, a := range row {
				if !a.IsBubble() {
					busy++
				}
			}
			if idle := length - busy; idle != p-2 {
				t.Errorf("%+v rank %d: idle %d steps, want P-2 = %d", sh, r, idle, p-2)
			}
		}
		for mb := range m {
			pos := mb % p
			if got, want := tb.MicrobatchRoute[mb], pos/(p/2); got != want {
				t.Errorf("%+v: microbatch %d on route %d, want %d", sh, mb, got, want)
			}
		}
	}
}

// TestChimeraDownPipelineTiming spells out P = 4, M = 4 by the paper's
// rule: the j-th microbatch of a pipeline runs F on its stage s at step
// 2j+s and B at 2j+P+(P-1-s); down stage s sits on rank s, up stage s on
// rank P-1-s (table stage P+s).
func TestChimeraDownPipelineTiming(t *testing.T) {
	const p = 4
	tb := mustGenerate(t, "chimera", Shape{Ranks: p, Microbatches: 4})
	for mb := range 4 {
		pipe, j := mb/(p/2), mb%(p/2)
		for s := range p {
			stage := pipe*p + s
			rank := s
			if pipe == 1 {
				rank = p - 1 - s
			}
			if got := tb.Rows[rank][2*j+s]; got != F(stage, mb) {
				t.Errorf("rank %d step %d: %s, want %s", rank, 2*j+s, got, F(stage, mb))
			}
			if got := tb.Rows[rank][2*j+p+p-1-s]; got != B(stage, mb) {
				t.Errorf("rank %d step %d: %s, want %s", rank, 2*j+p+p-1-s, got, B(stage, mb))
			}
		}
	}
}

func TestChimeraRefuses(t *testing.T) {
	for _, tc := range []struct {
		sh   Shape
		want string
	}{
		{Shape{Ranks: 3, Microbatches: 6}, "even number of ranks"},
		{Shape{Ranks: 4, Microbatches: 6}, "multiple of ranks"},
		{Shape{Ranks: 4, Microbatches: 2}, "multiple of ranks"},
		{Shape{Ranks: 4, Microbatches: 8, Chunks: 2}, "chunks must be 1"},
	} {
		if _, err := Generate("chimera", tc.sh); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.sh, err, tc.want)
		}
	}
}

// TestHanayoWave checks Hanayo's wave placement (arXiv 2308.15762): V/2
// waves down and back up the ranks, so with V = 2 rank r holds stages r and
// 2P-1-r, and the turn (stages P-1 and P) stays on rank P-1; that a lone
// microbatch, meeting nothing on its way, takes the 2VP steps of its
// forward down the wave and its backward back; and that odd V is refused.
func TestHanayoWave(t *testing.T) {
	tb := mustGenerate(t, "hanayo", Shape{Ranks: 4, Microbatches: 8})
	want := []int{0, 1, 2, 3, 3, 2, 1, 0}
	for s, r := range tb.Placement {
		if r != want[s] {
			t.Fatalf("placement %v, want %v", tb.Placement, want)
		}
	}
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 1, Chunks: 2}, {Ranks: 3, Microbatches: 1, Chunks: 4}} {
		if got, want := gridLength(mustGenerate(t, "hanayo", sh)), 2*sh.Chunks*sh.Ranks; got != want {
			t.Errorf("%+v: %d steps, want 2VP = %d", sh, got, want)
		}
	}
	if _, err := Generate("hanayo", Shape{Ranks: 4, Microbatches: 8, Chunks: 3}); err == nil || !strings.Contains(err.Error(), "even") {
		t.Errorf("V = 3: %v, want the even-chunks constraint named", err)
	}
}
