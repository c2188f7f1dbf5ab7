package sim_test

import (
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// TestPeakHeld: with share 1, and on a table that splits no backward, the
// count in M_B is PeakActivations; the automatic Zero Bubble schedule,
// built within P M_B at M_W/M_B = 0.5, holds at most P M_B on every rank,
// which its builder guarantees (tune.ZBAuto) and a whole count until W
// overstates (issue 39: compare showed 14 for it, 1F1B's memory).
func TestPeakHeld(t *testing.T) {
	for _, family := range []string{"1f1b", "zb-h1", "zb-v", "interleaved-zb"} {
		tb, err := pipeline.Generate(family, pipeline.Shape{Ranks: 4, Microbatches: 8})
		if err != nil {
			t.Fatal(err)
		}
		tl, err := sim.Simulate(tb, cost.Unit{}, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		whole := sim.PeakActivations(tl)
		for r, h := range sim.PeakHeld(tl, 1) {
			if h != float64(whole[r]) {
				t.Errorf("%s rank %d: PeakHeld at share 1 = %g, PeakActivations %d", family, r, h, whole[r])
			}
		}
		if family == "1f1b" && !slices.Equal(sim.PeakHeld(tl, 0.3), sim.PeakHeld(tl, 1)) {
			t.Errorf("1f1b splits no backward, yet its count depends on the share")
		}
	}
	const p, share = 8, 0.5
	stages := make([]tune.StageTimes, p)
	for i := range stages {
		stages[i] = tune.StageTimes{TF: 1, TB: 1, TW: 1}
	}
	auto, err := tune.ZBAuto(tune.ZBAutoProblem{Stages: stages, Microbatches: 32, WeightGradShare: share})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(auto.Table, cost.Unit{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := sim.PeakHeld(tl, share)
	if m := slices.Max(held); m > p+1e-9 {
		t.Errorf("zb-auto within %d M_B at M_W/M_B = %g holds %g M_B (per rank %v)", p, share, m, held)
	}
	t.Logf("zb-auto: %v M_B held, %v microbatches counted whole until W", held, sim.PeakActivations(tl))
}
