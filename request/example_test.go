package request_test

import (
	"context"
	"fmt"
	"os"

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

// Schedule is "pipelab schedule --kind gpipe --ranks 2 --microbatches 2"
// called from Go: the unit-time grid, drawn as the papers draw it (microbatches
// from 1, one stage a rank).
func ExampleSchedule() {
	t, err := pipeline.Generate("gpipe", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		panic(err)
	}
	rep, err := request.Schedule(context.Background(), request.ScheduleRequest{Table: t})
	if err != nil {
		panic(err)
	}
	if err := rep.Write(os.Stdout); err != nil {
		panic(err)
	}
	// GPipe (Huang et al. 2019): every forward, then every backward; rank
	// 1 starts a step late and the backwards return in reverse.

	// Output:
	// rank 0: F1 F2  .  . B1 B2
	// rank 1:  . F1 F2 B1 B2  .
}

// Delays is "pipelab delays --ranks 4" called from Go: asynchronous
// PipeDream on S = 4 stages, N = 40 microbatches, read by its own grid.
// Its steady-state maximum delay is ⌊S² − S/2⌋ = 14 (docs/reference.md
// §1.3).
func ExampleDelays() {
	t, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	if err != nil {
		panic(err)
	}
	rep, err := request.Delays(context.Background(), request.DelaysRequest{Kind: "pipedream", Table: t, Grid: true, Total: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("stages:", rep.Stages, "total microbatches:", rep.Total, "max delay:", rep.Max)
	// Output: stages: 4 total microbatches: 40 max delay: 14
}

// CommandNamed is the library's commands by name, as the server runs
// them: the flags by their command-line names, decoded as the command line
// decodes them.
func ExampleCommandNamed() {
	cmd, _ := request.CommandNamed("simulate")
	rep, err := cmd.Run(context.Background(), []string{"--kind=gpipe", "--ranks=2", "--microbatches=3"}, os.Stderr)
	if err != nil {
		panic(err)
	}
	// GPipe under unit costs: 2(M + P − 1) steps (Huang et al. 2019).
	fmt.Println("makespan:", rep.(request.SimulateReport).Makespan)
	// Output: makespan: 8
}
