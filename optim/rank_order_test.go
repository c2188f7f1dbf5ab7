package optim

import (
	"math"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// The asynchronous replay of a table depends on each rank's order of
// actions, not on their times: every read and every update of block s
// happens on stage s's rank, so re-timing a table (unit time against
// uneven per-stage costs with transfers) changes the interleaving of
// different stages' events but not the final point. Only the logged
// records, taken after a global count of block updates, may fall at other
// points. Checked on the LM for PipeDream, pd-nostash and PipeMare on
// PipeDream's grid, 1F1B and ZB-H1.
func TestAsyncReplayDependsOnRankOrderOnly(t *testing.T) {
	lm := smallLM(t, 4)
	uneven := cost.Explicit{TF: 1, TB: 2.3, TW: 0.7, Comm: 0.15,
		Stages: []cost.Stage{{TF: 0.4, TB: 0.9, TW: 0.3}, {TF: 1.7, TB: 3.1, TW: 1.2}}}
	set := Settings{StepSize: 0.02, Optimizer: Optimizer{Algorithm: Adam}}
	for _, family := range []string{"pipedream", "1f1b", "zb-h1"} {
		tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: 4, Microbatches: 12})
		if err != nil {
			t.Fatal(err)
		}
		timed, err := sim.Simulate(tab, uneven, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		unit := sim.FromGrid(tab)
		if slices.EqualFunc(unit.Events, timed.Events, func(a, b sim.Event) bool { return a.Start == b.Start }) {
			t.Fatalf("%s: the re-timed table has the unit grid's start times", family)
		}
		for _, pair := range [][2]Method{
			{PipeDream{Timeline: unit}, PipeDream{Timeline: timed}},
			{PipeDreamNoStash{Timeline: unit}, PipeDreamNoStash{Timeline: timed}},
			{PipeMare{Timeline: unit, Decay: 0.5}, PipeMare{Timeline: timed, Decay: 0.5}},
		} {
			a, b := mustRun(t, lm, pair[0], set), mustRun(t, lm, pair[1], set)
			if !slices.Equal(a.X, b.X) || math.Float64bits(a.FinalLoss) != math.Float64bits(b.FinalLoss) {
				t.Errorf("%s %s: re-timing the table moves the final point (final loss %.17g and %.17g)", family, pair[0].Name(), a.FinalLoss, b.FinalLoss)
			}
		}
	}
}

// PipeDream's asynchronous grid (docs/reference.md §1.2) and the 1F1B
// table are not the same table: on rank 1 of four the grid admits a
// fourth microbatch before the first backward (F0 F1 F2 F3 B0), 1F1B
// runs S - 1 - s = 2 warm-up forwards and then alternates (F0 F1 F2 B0
// F3), so 1F1B's F3 on stage 1 reads one update more and the two replays
// end at different points. This, not the clock, is why the 1f1b family's
// replay differs from PipeDream's grid.
func TestPipeDreamGridIsNot1F1B(t *testing.T) {
	order := func(family string, rank int) []string {
		tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: 4, Microbatches: 8})
		if err != nil {
			t.Fatal(err)
		}
		var acts []string
		for _, a := range tab.Rows[rank] {
			if a.Kind != pipeline.Bubble && len(acts) < 5 {
				acts = append(acts, a.String())
			}
		}
		return acts
	}
	if got, want := order("pipedream", 1), []string{"1F0", "1F1", "1F2", "1F3", "1B0"}; !slices.Equal(got, want) {
		t.Errorf("pipedream rank 1 starts %v, want %v", got, want)
	}
	if got, want := order("1f1b", 1), []string{"1F0", "1F1", "1F2", "1B0", "1F3"}; !slices.Equal(got, want) {
		t.Errorf("1f1b rank 1 starts %v, want %v", got, want)
	}
	lm := smallLM(t, 4)
	set := Settings{StepSize: 0.02, Optimizer: Optimizer{Algorithm: Adam}}
	grid := mustRun(t, lm, PipeDream{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 12})}, set)
	oneF := mustRun(t, lm, PipeDream{Timeline: generate(t, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 12})}, set)
	if slices.Equal(grid.X, oneF.X) {
		t.Error("PipeDream's grid and the 1F1B table replay to the same point")
	}
}
