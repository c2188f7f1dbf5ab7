package experiments_test

import (
	"context"
	"fmt"

	"github.com/pipelab/pipelab/experiments"
)

// Train runs one convergence run: here PipeDream's asynchronous 1F1B and
// synchronous SGD (GPipe's flush every S microbatches) on the same
// random least-squares problem, 4 stages, 256 microbatches each, in unit
// time. A sweep's runs and pipelab train go through the same call.
// PipeDream makes four times the updates, on stale weights, in 2(N+S−1)
// = 518 steps against GPipe's (N/S)·2(2S−1) = 896; here it ends level
// with sync in 58% of the time.
func ExampleTrain() {
	for _, method := range []string{"pipedream", "sync"} {
		run := experiments.Run{Objective: "quadratic", N: 200, D: 40, Batch: 10, DataSeed: 1, Seed: 1,
			Method: method, Stages: 4, TotalMicrobatches: 256, Step: 0.01}
		if method == "sync" {
			// Sync SGD is timed by a flush schedule's iterations of S
			// microbatches each, whose gradients it averages: one update
			// an iteration, at four times the step.
			run.Family, run.Microbatches, run.Step = "gpipe", 4, 0.04
		}
		tr, err := experiments.Train(context.Background(), run)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-9s %d microbatches, %4.0f steps of unit time, final loss %.4f\n",
			method, tr.TotalMicrobatches, tr.Time, tr.FinalLoss)
	}
	// Output:
	// pipedream 256 microbatches,  518 steps of unit time, final loss 0.4752
	// sync      256 microbatches,  896 steps of unit time, final loss 0.4747
}
