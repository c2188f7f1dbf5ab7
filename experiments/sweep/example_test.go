package sweep_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/experiments/sweep"
)

// A Kubernetes indexed Job's pod finds its shard in its environment.
func ExampleShardFromEnv() {
	env := map[string]string{"JOB_COMPLETION_INDEX": "2", "PIPELAB_SHARDS": "4"}
	shard, err := sweep.ShardFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, 0)
	fmt.Println(shard, err)
	// Output:
	// 2/4 <nil>
}

// A sweep folder's dataset.json names its spec and shard: NewDataset gives
// the same id to every shard of one spec, so Merge can tell shards of one
// sweep from another's and find the missing ones.
func ExampleNewDataset() {
	spec, err := experiments.ParseSpec("sweep.yaml", []byte(`seed: 1
objectives: [quadratic]
n: 100
d: 16
batch_size: 10
stages: [2, 4]
total_microbatches: [20]
methods:
  - name: pipedream
    step_sizes: {values: [0.1, 0.2]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	all := spec.Expand()
	for i := range 2 {
		ds := sweep.NewDataset("sweep", all, sweep.Shard{Index: i, Count: 2})
		fmt.Printf("%s: %d of %d runs\n", ds.Shard(), ds.ShardRuns(), ds.Runs)
	}
	a := sweep.NewDataset("sweep", all, sweep.Shard{Index: 0, Count: 2})
	b := sweep.NewDataset("sweep", all, sweep.Shard{Index: 1, Count: 2})
	fmt.Println("same spec id:", a.SpecID == b.SpecID)
	// Output:
	// 0/2: 2 of 4 runs
	// 1/2: 2 of 4 runs
	// same spec id: true
}

// Sharding splits a sweep's runs by their index: shard I of N runs those
// whose index mod N is I.
func ExampleShard_Select() {
	spec, err := experiments.ParseSpec("sweep.yaml", []byte(`seed: 1
objectives: [quadratic]
n: 100
d: 16
batch_size: 10
stages: [4]
total_microbatches: [50]
methods:
  - {name: pipedream, step_sizes: {pow2: [-3, -2]}}
  - {name: rpd, deltas: [paper], step_sizes: {values: [0.125]}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	shard, _ := sweep.ParseShard("1/2")
	for _, r := range shard.Select(spec.Expand()) {
		fmt.Println(r.Index, r.Name)
	}
	// Output:
	// 1 experiment=convergence objective=quadratic n=100 d=16 batch=10 method=pipedream S=4 step=0.25 N=50 cost=unit replicate=0 seed=1
}

// Reproduce runs a figure's preset sweeps, here the delays figure at its
// quick size (PipeDream's delays at S = 2 to 32), into a folder of its own
// under Out, and draws its plots (each a PNG and an SVG file, listed
// without the extension).
func ExampleReproduce() {
	out, err := os.MkdirTemp("", "pipelab-reproduce")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)
	fig, err := experiments.LookupFigure("delays")
	if err != nil {
		fmt.Println(err)
		return
	}
	reports, err := sweep.Reproduce(context.Background(), []experiments.Figure{fig},
		sweep.ReproduceOptions{Quick: true, Out: out, Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reports {
		fmt.Printf("%s: %d runs (%d resumed)\n", r.Figure, r.Summary.Runs, r.Summary.Resumed)
		for _, p := range r.Plots {
			rel, _ := filepath.Rel(out, p)
			fmt.Println(filepath.ToSlash(rel))
		}
	}
	// Output:
	// delays: 5 runs (0 resumed)
	// delays/delays
}
