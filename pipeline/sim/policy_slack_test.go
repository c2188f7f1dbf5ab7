package sim

import (
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// startOf returns when compute action a starts in tl.
func startOf(t *testing.T, tl *Timeline, a pipeline.Action) float64 {
	t.Helper()
	for _, e := range tl.Events {
		if e.Action == a && e.Index >= 0 {
			return e.Start
		}
	}
	t.Fatalf("%v is not in the timeline", a)
	return 0
}

// The smallest case in which backward-first dispatch delays a forward on
// the critical path (docs/readiness.md): 1F1B with P = 2, M = 3, unit
// costs, rank 0 twice as slow (F and B take 2 steps there, 1 on rank 1).
// Worked by hand: in the fixed order rank 0 runs F0 [0,2] F1 [2,4] B0 [4,6]
// F2 [6,8] B1 [8,10] B2 [10,12], rank 1 F0 [2,3] B0 [3,4] F1 [4,5] B1 [5,6]
// F2 [8,9] B2 [9,10]: 12 steps. At step 6 rank 0 has F2 and B1 ready and
// one activation below its cap; backward first runs B1 [6,8], so F2 runs
// [8,10], rank 1's F2 and B2 [10,12], and rank 0's B2 [12,14]: 14 steps.
// Memory is not what costs the two steps, so no slack on the cap wins them
// back; the table order without waiting keeps F2 first and the 12 steps.
func TestBackwardFirstDelaysCriticalForward(t *testing.T) {
	tab := generate(t, "1f1b", pipeline.Shape{Ranks: 2, Microbatches: 3})
	slow := Variability{Stragglers: map[int]float64{0: 2}}
	fixed, err := Simulate(tab, cost.Unit{}, Options{Variability: slow})
	if err != nil {
		t.Fatal(err)
	}
	if got := Makespan(fixed); got != 12 {
		t.Fatalf("fixed: %g steps, want 12", got)
	}
	if got := startOf(t, fixed, pipeline.F(0, 2)); got != 6 {
		t.Errorf("fixed: F(0,2) starts at %g, want 6", got)
	}
	for slack := range 9 {
		bf, err := Simulate(tab, cost.Unit{}, Options{Policy: Ready, Hint: BackwardFirst, ActivationSlack: slack, Variability: slow})
		if err != nil {
			t.Fatal(err)
		}
		if got := Makespan(bf); got != 14 {
			t.Errorf("bf, cap +%d: %g steps, want 14", slack, got)
		}
		if b, f := startOf(t, bf, pipeline.B(0, 1)), startOf(t, bf, pipeline.F(0, 2)); b != 6 || f != 8 {
			t.Errorf("bf, cap +%d: B(0,1) at %g and F(0,2) at %g, want 6 and 8", slack, b, f)
		}
		table, err := Simulate(tab, cost.Unit{}, Options{Policy: Ready, Patience: NoWait, ActivationSlack: slack, Variability: slow})
		if err != nil {
			t.Fatal(err)
		}
		if got := Makespan(table); got != 12 {
			t.Errorf("table hint, no wait, cap +%d: %g steps, want 12", slack, got)
		}
	}
}

// ActivationSlack raises each rank's cap to its fixed peak plus the
// slack: a rank never holds more, and with a straggler downstream the
// ranks above it use the room (1F1B, P = 4, M = 8: rank r's fixed peak is
// P - r, docs/reference.md §2).
func TestActivationSlackRaisesEachRanksCap(t *testing.T) {
	tab := generate(t, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	fixedPeak := FixedPeakActivations(tab)
	if !slices.Equal(fixedPeak, []int{4, 3, 2, 1}) {
		t.Fatalf("fixed peaks %v, want [4 3 2 1]", fixedPeak)
	}
	for slack := range 4 {
		tl, err := Simulate(tab, cost.Unit{}, Options{Policy: Ready, Patience: NoWait, ActivationSlack: slack,
			Variability: Variability{Stragglers: map[int]float64{3: 3}}})
		if err != nil {
			t.Fatal(err)
		}
		peak := PeakActivations(tl)
		for r := range peak {
			if peak[r] > fixedPeak[r]+slack {
				t.Errorf("cap +%d: rank %d holds %d, above its cap %d", slack, r, peak[r], fixedPeak[r]+slack)
			}
		}
		if peak[0] != fixedPeak[0]+slack {
			t.Errorf("cap +%d: rank 0 holds at most %d, want its whole cap %d while rank 3 lags", slack, peak[0], fixedPeak[0]+slack)
		}
	}
	if _, err := Simulate(tab, cost.Unit{}, Options{Policy: Ready, ActivationSlack: -1}); err == nil {
		t.Error("a negative slack: no error")
	}
}
