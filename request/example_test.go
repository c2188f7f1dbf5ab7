package request_test

import (
	"context"
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/request"
)

// Simulate is "pipelab simulate --kind 1f1b --ranks 4 --microbatches 8"
// called from Go: under unit costs 1F1B takes 2(M + P − 1) steps.
func ExampleSimulate() {
	t, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		panic(err)
	}
	rep, err := request.Simulate(context.Background(), request.SimulateRequest{
		Kind: "1f1b", Table: t, Pricing: request.Pricing{Cost: cost.Unit{}, Name: "unit"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("makespan %g, bubble ratio %.4f, rank 0 busy %g\n", rep.Makespan, rep.BubbleRatio, rep.Ranks[0].Busy)
	// Output: makespan 22, bubble ratio 0.2727, rank 0 busy 16
}
