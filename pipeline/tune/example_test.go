package tune_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

func ExampleTune() {
	model, _ := cost.LookupNetwork("vlm-7b")
	gpu, _ := cost.LookupGPU("h200")
	link, _ := cost.LookupLink("ib-ndr")
	res, err := tune.Tune(tune.Problem{
		Config:       cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048},
		Ranks:        2,
		Microbatches: []int{4},
		Schedules:    []tune.Schedule{{Family: "1f1b", Chunks: 1}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The vision tower is cheap per layer, so balancing time puts the
	// encoder, the projector and half the decoder (43 of the 60 layers) on
	// the first stage; Megatron-LM's even split is the baseline.
	fmt.Println("baseline:", res.Baseline.Schedule, res.Baseline.Partition)
	fmt.Println("tuned:   ", res.Best.Schedule, res.Best.Partition)
	fmt.Printf("speedup:  %.2f\n", res.Speedup)
	// Output:
	// baseline: interleaved-1f1b×2 [15 15 15 15]
	// tuned:    1f1b [43 17]
	// speedup:  1.11
}
