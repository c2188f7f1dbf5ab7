package sim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Compare's levels are the pieces it joins, each computed independently
// here: the closed form at the table's own chunks, PyTorch's check of the
// table lowered by pipeline.Lower (whatever path TorchLockstep takes: the
// count without building the lowered table, the grid, or a table already
// lowered), and Simulate.
func TestCompareLevels(t *testing.T) {
	for _, family := range []string{"gpipe", "1f1b", "zb-h1", "interleaved-1f1b", "chimera"} {
		t.Run(family, func(t *testing.T) {
			sh := pipeline.Shape{Ranks: 4, Microbatches: 8}
			tab, err := pipeline.Generate(family, sh)
			if err != nil {
				t.Fatal(err)
			}
			share := cost.UnitShare(tab)
			lv, err := Compare(family, tab, sh, cost.Unit{}, share, LockstepGrid)
			if err != nil {
				t.Fatal(err)
			}

			_, parts := cost.ModelParts(tab)
			own := sh
			own.Chunks = parts / tab.Ranks()
			est, ok := ClosedForm(family, own, share)
			if ok != (lv.Formula != nil) || ok && (*lv.Formula != est || lv.FormulaPeak != est.PeakActivations*cost.StageShare(tab)) {
				t.Errorf("formula: got %+v (peak %g), ClosedForm at V = %d gives %+v (%v)", lv.Formula, lv.FormulaPeak, own.Chunks, est, ok)
			}

			low, err := pipeline.Lower(pipeline.DropBubbles(tab))
			if err != nil {
				t.Fatal(err)
			}
			want, err := pipeline.Lockstep(low)
			if err != nil {
				t.Fatal(err)
			}
			if lv.LockstepErr != nil || lv.Steps != want || Makespan(FromGrid(lv.Grid)) != float64(want) {
				t.Errorf("lockstep with its grid: %d steps, grid %g, error %v; Lockstep(Lower) gives %d",
					lv.Steps, Makespan(FromGrid(lv.Grid)), lv.LockstepErr, want)
			}
			count, err := Compare(family, tab, sh, cost.Unit{}, share, LockstepSteps)
			if err != nil || count.Steps != want || count.Grid != nil {
				t.Errorf("lockstep count: %d steps (grid %v, error %v), want %d and no grid", count.Steps, count.Grid != nil, err, want)
			}
			if _, steps, err := TorchLockstep(low, false); err != nil || steps != want {
				t.Errorf("lockstep of the lowered table: %d steps (%v), want %d", steps, err, want)
			}
			none, err := Compare(family, tab, sh, cost.Unit{}, share, NoLockstep)
			if err != nil || none.Steps != 0 || none.Grid != nil || none.LockstepErr != nil {
				t.Errorf("NoLockstep computed a lockstep level: %d steps, grid %v, %v", none.Steps, none.Grid != nil, none.LockstepErr)
			}

			tl, err := Simulate(tab, cost.Unit{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if Makespan(lv.Timeline) != Makespan(tl) || len(lv.Timeline.Events) != len(tl.Events) {
				t.Errorf("simulated: makespan %g with %d events, Simulate gives %g with %d",
					Makespan(lv.Timeline), len(lv.Timeline.Events), Makespan(tl), len(tl.Events))
			}
		})
	}
}

// GPipe's unit-time simulation is its closed form, 2(M + P - 1) steps
// (docs/reference.md §2), and a failed simulation leaves the other two
// levels filled in.
func TestCompareGPipe(t *testing.T) {
	sh := pipeline.Shape{Ranks: 4, Microbatches: 8}
	tab, err := pipeline.Generate("gpipe", sh)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := Compare("gpipe", tab, sh, cost.Unit{}, cost.UnitShare(tab), LockstepSteps)
	if err != nil {
		t.Fatal(err)
	}
	if lv.Formula == nil || lv.Formula.Makespan != 22 || Makespan(lv.Timeline) != 22 {
		t.Errorf("GPipe P = 4, M = 8: formula %v, simulated %g, want 22 for both", lv.Formula, Makespan(lv.Timeline))
	}
	failed, err := Compare("gpipe", tab, sh, nil, cost.UnitShare(tab), LockstepSteps)
	if err == nil || failed.Timeline != nil {
		t.Fatalf("a nil cost model: error %v, timeline %v; want an error and none", err, failed.Timeline)
	}
	if failed.Formula == nil || *failed.Formula != *lv.Formula || failed.Steps != lv.Steps || failed.LockstepErr != nil {
		t.Errorf("after a failed simulation: formula %v, %d steps (%v); want %v and %d", failed.Formula, failed.Steps, failed.LockstepErr, lv.Formula, lv.Steps)
	}
}
