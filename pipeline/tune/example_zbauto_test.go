package tune_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// The automatic Zero Bubble schedule for four stages whose weight
// gradients take half a forward, with transfers, under the limit 2P.
func ExampleZBAuto() {
	stages := make([]tune.StageTimes, 4)
	for i := range stages {
		stages[i] = tune.StageTimes{TF: 2, TB: 2, TW: 1, Comm: 0.5}
	}
	s, err := tune.ZBAuto(tune.ZBAutoProblem{Stages: stages, Microbatches: 8, MaxActivations: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %g (%s)\n", s.Table.Family, s.Makespan, s.Source)
	for _, c := range s.Candidates {
		if c.Source == "zb-h1" || c.Source == "zb-h2" {
			fmt.Printf("%s: %g\n", c.Source, c.Makespan)
		}
	}
	// Output:
	// zb-auto: 48 (heuristic (fill warm-up, skip forwards, fill small gaps))
	// zb-h1: 55
	// zb-h2: 49
}

// The automatic schedule's inputs read from a cost model: here explicit
// times with a transfer of 0.5 between ranks; a model without M_W keeps
// the whole activation until W (share 1).
func ExampleStageTimesOf() {
	cost := cost.Explicit{TF: 2, TB: 2, TW: 1, Comm: 0.5}
	fmt.Println(tune.StageTimesOf(cost, 3))
	fmt.Println(tune.WeightGradShareOf(nil, 3))
	// Output:
	// [{2 2 1 0.5} {2 2 1 0.5} {2 2 1 0}]
	// 1
}
