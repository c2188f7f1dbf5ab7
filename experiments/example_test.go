package experiments_test

import (
	"fmt"

	"pipelab/experiments"
)

// A spec is checked before anything runs; an error names the key and its
// line.
func ExampleParseSpec() {
	_, err := experiments.ParseSpec("sweep.yaml", []byte(`objectives: [quadratic]
n: 100
d: 16
batch: 10
stages: [1, 4]
`))
	fmt.Println(err)
	// Output:
	// sweep.yaml:5: stages[0]: stage count 1 is below 2
}

// Expanding a spec gives runs with ids and seeds that depend on their
// parameters only; sharding splits them by index.
func ExampleSpec_Expand() {
	spec, err := experiments.ParseSpec("sweep.yaml", []byte(`seed: 1
objectives: [quadratic]
n: 100
d: 16
batch: 10
stages: [4]
microbatches: [50]
methods:
  - {name: pipedream, steps: {pow2: [-3, -2]}}
  - {name: rpd, deltas: [paper], steps: {values: [0.125]}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	runs := spec.Expand()
	for _, r := range runs {
		fmt.Println(r.Name)
	}
	shard, _ := experiments.ParseShard("1/2")
	fmt.Println("shard 1/2:", len(shard.Select(runs)), "runs")
	// Output:
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=pipedream S=4 step=0.125 N=50 cost=unit replicate=0 seed=1
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=pipedream S=4 step=0.25 N=50 cost=unit replicate=0 seed=1
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=rpd S=4 delta=14 step=0.125 N=50 cost=unit replicate=0 seed=1
	// shard 1/2: 1 runs
}
