package explorer_test

import (
	"fmt"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// The page's columns of a simulated 1F1B: 2 ranks, 2 microbatches, unit
// costs (every compute a step, transfers free). Rank 0 runs F0 and F1,
// waits for rank 1's B0 (rank 1: F0 at 1, B0 at 2), runs B0 at 3, then
// waits for rank 1's B1 (F1 at 3, B1 at 4) and runs it at 5.
func ExampleTimelineOf() {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	tl, err := sim.Simulate(tab, cost.Unit{}, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cols := explorer.TimelineOf(tl)
	fmt.Println("ranks:", cols.Ranks, "compute events:", len(cols.Compute.Rank))
	for i, r := range cols.Compute.Rank {
		if r == 0 {
			fmt.Printf("%s [%g, %g] ", cols.Compute.Name[i], cols.Compute.Start[i], cols.Compute.End[i])
		}
	}
	fmt.Println()
	// Output:
	// ranks: 2 compute events: 8
	// 0F0 [0, 1] 0F1 [1, 2] 0B0 [3, 4] 0B1 [5, 6]
}
