package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// dualPipeVShapes are accepted shapes: P = 1 to 6 with M from the least
// allowed, 2P, to past 3P, odd and even.
func dualPipeVShapes() []Shape {
	var out []Shape
	for p := 1; p <= 6; p++ {
		for _, m := range []int{2 * p, 2*p + 1, 3*p + 2, 4 * p} {
			out = append(out, Shape{Ranks: p, Microbatches: m})
		}
	}
	return out
}

// TestDualPipeVHandStepped compares P = 2, M = 4 with the orders stepped by
// hand through the eight phases of DeepSeek's dualpipev.py (as PyTorch's
// ScheduleDualPipeV repeats them), rank 0 holding stages 0 and 3, rank 1
// stages 1 and 2:
//
//	rank 0: 1. F0 F0  2. F0 F1  3. I1 W1 F1  4. (F0;B1) (F1;B0)
//	        5. B1 (F1;B0)  6. B1, then split: I0  7. W I0  8. W
//	rank 1: 1. -  2. F0 F1 F0 F1  3. -  4. F0 B1 (F1;B0), (F0;B1) (F1;B0)
//	        5. -  6. B1 B0, then split: I1 I0  7. -  8. W W
//
// (the last rank runs the first pair of phase 4 apart). Bubbles aside, the
// rows must be these.
func TestDualPipeVHandStepped(t *testing.T) {
	want := [][]string{
		strings.Fields("0F0 0F1 0F2 3F0 3I0 3W0 3F1 (0F3;3B1)OVERLAP_F_B (3F2;0B0)OVERLAP_F_B 3B2 (3F3;0B1)OVERLAP_F_B 3B3 0I2 0W2 0I3 0W3"),
		strings.Fields("1F0 2F0 1F1 2F1 1F2 2B0 (2F2;1B0)OVERLAP_F_B (1F3;2B1)OVERLAP_F_B (2F3;1B1)OVERLAP_F_B 2B2 1B2 2I3 1I3 2W3 1W3"),
	}
	tb := mustGenerate(t, "dualpipev", Shape{Ranks: 2, Microbatches: 4})
	if !slices.Equal(tb.Placement, []int{0, 1, 1, 0}) {
		t.Errorf("placement %v, want the V [0 1 1 0]", tb.Placement)
	}
	if tb.Update != Flush {
		t.Errorf("update rule %v, want Flush", tb.Update)
	}
	for r, row := range tb.Rows {
		var got []string
		for _, a := range row {
			if !a.IsBubble() {
				got = append(got, a.String())
			}
		}
		if !slices.Equal(got, want[r]) {
			t.Errorf("rank %d:\n got %v\nwant %v", r, got, want[r])
		}
	}
}

// TestDualPipeVRefuses checks the constraints both implementations state:
// two chunks per rank (the V), and M >= 2P (DeepSeek asserts num_chunks >=
// num_ranks * 2, PyTorch that there are at least as many microbatches as
// stages).
func TestDualPipeVRefuses(t *testing.T) {
	for _, tc := range []struct {
		sh   Shape
		want string
	}{
		{Shape{Ranks: 4, Microbatches: 7}, "M >= 2P = 8"},
		{Shape{Ranks: 1, Microbatches: 1}, "M >= 2P = 2"},
		{Shape{Ranks: 3, Microbatches: 12, Chunks: 1}, "chunks must be 2"},
		{Shape{Ranks: 3, Microbatches: 12, Chunks: 4}, "chunks must be 2"},
	} {
		_, err := Generate("dualpipev", tc.sh)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.sh, err, tc.want)
		}
	}
	if _, err := Generate("dualpipev", Shape{Ranks: 3, Microbatches: 6, Chunks: 2}); err != nil {
		t.Errorf("chunks 2 given explicitly: %v", err)
	}
}

// TestDualPipeVRunsToCompletion validates every accepted shape, lowers it
// and runs PyTorch's lockstep check to the end.
func TestDualPipeVRunsToCompletion(t *testing.T) {
	for _, sh := range dualPipeVShapes() {
		tb := mustGenerate(t, "dualpipev", sh)
		if err := tb.Validate(); err != nil {
			t.Errorf("%+v: %v", sh, err)
			continue
		}
		lowersAndRuns(t, fmt.Sprintf("%+v", sh), tb)
	}
}

// TestDualPipeVCounts counts the cells of every accepted shape from their
// fields, without the package's own expansion of OVERLAP_F_B: each (stage,
// microbatch) has one forward (alone or as an overlap's forward half) and
// one backward (a B, an overlap's backward half, or an I and a W). Per
// rank, the phases of dualpipev.py (see dualPipeV) give the mix:
// overlapped pairs 2(M - 2P + r + 1) in phase 4, less one on the last rank,
// plus P - r - 1 in phase 5; split backwards (I with W) P - r - 1 in phase
// 3, r + 1 in phase 6 and P - r - 1 in phase 7.
func TestDualPipeVCounts(t *testing.T) {
	for _, sh := range dualPipeVShapes() {
		p, m := sh.Ranks, sh.Microbatches
		tb := mustGenerate(t, "dualpipev", sh)
		type key struct{ s, m int }
		fwd, bwd, in, wt := map[key]int{}, map[key]int{}, map[key]int{}, map[key]int{}
		for r, row := range tb.Rows {
			overlaps, splits := 0, 0
			for _, a := range row {
				switch a.Kind {
				case Forward:
					fwd[key{a.Stage, a.Microbatch}]++
				case Backward:
					bwd[key{a.Stage, a.Microbatch}]++
				case BackwardInput:
					in[key{a.Stage, a.Microbatch}]++
					splits++
				case BackwardWeight:
					wt[key{a.Stage, a.Microbatch}]++
				case OverlapFB:
					fwd[key{a.Stage, a.Microbatch}]++
					bwd[key{a.BackStage, a.BackMicrobatch}]++
					overlaps++
				}
			}
			wantOverlaps := 2*(m-2*p+r+1) + (p - r - 1)
			if r == p-1 {
				wantOverlaps--
			}
			if overlaps != wantOverlaps {
				t.Errorf("%+v rank %d: %d OVERLAP_F_B, want %d", sh, r, overlaps, wantOverlaps)
			}
			if want := 2*(p-r-1) + r + 1; splits != want {
				t.Errorf("%+v rank %d: %d split backwards, want %d", sh, r, splits, want)
			}
		}
		for s := range 2 * p {
			for mb := range m {
				k := key{s, mb}
				if fwd[k] != 1 {
					t.Errorf("%+v stage %d microbatch %d: %d forwards, want 1", sh, s, mb, fwd[k])
				}
				full, split := bwd[k], in[k]
				if full+split != 1 || wt[k] != split {
					t.Errorf("%+v stage %d microbatch %d: %d B, %d I, %d W; want one B, or one I and one W", sh, s, mb, full, split, wt[k])
				}
			}
		}
	}
}

// TestDualPipeVActivations checks the peak against the "Activation Per
// Device" column of DualPipe's README, PP + 1. The README compares methods
// on the same number PP of pipeline stages, where 1F1B's first device holds
// PP: its unit is one microbatch's activations of one stage. DualPipeV's
// stage is one of our chunks, so the unit is ours (one per stage and
// microbatch, held from F to the end of its backward: B, or W when split)
// and PP + 1 = 2P + 1.
//
// Counted as the README counts it, an overlapped F&B holds its forward's
// activations while its backward still holds the other's: its forward
// comes first. Every rank then peaks at 2P + 1: phases 1 and 2 leave 2P
// forwards in flight on every rank (2(P-r-1) + 2(r+1)), phase 3 frees one
// for one, and phase 4's first pair adds a forward before its backward
// frees one (on the last rank, whose phase 3 is empty, the pair runs as a
// plain F then B). (The simulator, which counts at the end of each action, nets
// an OVERLAP_F_B to 0 and sees 2P + 1 only on the last rank, whose first
// pair runs apart; pipeline/sim's dualpipev_test.go checks that count.)
func TestDualPipeVActivations(t *testing.T) {
	for _, sh := range dualPipeVShapes() {
		tb := mustGenerate(t, "dualpipev", sh)
		for r, row := range tb.Rows {
			held, peak, leading := 0, 0, -1
			for _, a := range row {
				if leading < 0 && a.Kind != Bubble && a.Kind != Forward {
					leading = held // the forwards before the rank's first backward
				}
				switch a.Kind {
				case Forward:
					held++
				case OverlapFB:
					held++ // the forward half, before the backward half frees one
					peak = max(peak, held)
					held--
				case Backward, BackwardWeight:
					held--
				}
				peak = max(peak, held)
			}
			if want := 2*sh.Ranks + 1; peak != want {
				t.Errorf("%+v rank %d: peak %d chunk activations, want PP + 1 = 2P + 1 = %d", sh, r, peak, want)
			}
			if held != 0 {
				t.Errorf("%+v rank %d: %d activations still held at the end", sh, r, held)
			}
			want := 2 * sh.Ranks // phases 1 and 2
			if r == sh.Ranks-1 {
				want++ // and the forward of phase 4's first pair, run apart
			}
			if leading != want {
				t.Errorf("%+v rank %d: %d forwards before the first backward, want %d", sh, r, leading, want)
			}
		}
	}
}

// TestDualPipeVUnitGrid checks the idealised grid on its own: every cell
// runs one step, and each single action a cell stands for, an OVERLAP_F_B's
// forward and backward halves too, finds its inputs in a strictly earlier
// column (F(s-1, m) for F(s, m); F(s, m) and the backward of (s+1, m) for a
// B or I; I(s, m) for W).
func TestDualPipeVUnitGrid(t *testing.T) {
	for _, sh := range dualPipeVShapes() {
		tb := mustGenerate(t, "dualpipev", sh)
		last := tb.Stages() - 1
		col := map[string]int{} // "F 3 7", "back 3 7" (B, I or overlap half), "I 3 7"
		put := func(k string, s, m, c int) { col[fmt.Sprintf("%s %d %d", k, s, m)] = c }
		for _, row := range tb.Rows {
			for c, a := range row {
				switch a.Kind {
				case Forward:
					put("F", a.Stage, a.Microbatch, c)
				case Backward:
					put("back", a.Stage, a.Microbatch, c)
				case BackwardInput:
					put("back", a.Stage, a.Microbatch, c)
					put("I", a.Stage, a.Microbatch, c)
				case OverlapFB:
					put("F", a.Stage, a.Microbatch, c)
					put("back", a.BackStage, a.BackMicrobatch, c)
				}
			}
		}
		before := func(c int, k string, s, m int) bool {
			at, ok := col[fmt.Sprintf("%s %d %d", k, s, m)]
			return ok && at < c
		}
		check := func(c int, k Kind, s, m int) bool {
			switch k {
			case Forward:
				return s == 0 || before(c, "F", s-1, m)
			case Backward, BackwardInput:
				return before(c, "F", s, m) && (s == last || before(c, "back", s+1, m))
			case BackwardWeight:
				return before(c, "I", s, m)
			}
			return true
		}
		for r, row := range tb.Rows {
			for c, a := range row {
				ok := check(c, a.Kind, a.Stage, a.Microbatch)
				if a.Kind == OverlapFB {
					ok = check(c, Forward, a.Stage, a.Microbatch) && check(c, Backward, a.BackStage, a.BackMicrobatch)
				}
				if !ok {
					t.Errorf("%+v rank %d column %d (%s) runs before its inputs", sh, r, c, a)
				}
			}
		}
	}
}
