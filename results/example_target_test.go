package results_test

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/results"
)

// The time to the target of each method over its seeds: the mean of the
// seeds that reached it, their fastest and slowest, and how many did.
func ExampleTargetBars() {
	runs := []results.Run{
		{RunID: "a", Method: "pipedream", Optimizer: "sgd", Stages: 4, TimeToTarget: 1.5},
		{RunID: "b", Method: "pipedream", Optimizer: "sgd", Stages: 4, TimeToTarget: 2.5},
		{RunID: "c", Method: "sync", Optimizer: "sgd", Stages: 4, TimeToTarget: math.NaN()},
	}
	for _, b := range results.TargetBars(runs) {
		fmt.Printf("%s S=%d: %.1f s (%.1f–%.1f), %d of %d seeds\n", b.Method, b.Stages, b.Mean, b.Min, b.Max, b.Reached, b.Seeds)
	}
	// Output:
	// pipedream S=4: 2.0 s (1.5–2.5), 2 of 2 seeds
	// sync S=4: NaN s (NaN–NaN), 0 of 1 seeds
}
