package tune_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// Sixteen A100s in two nodes run a small GPT with a batch of 32: the tuner
// tries every tensor × pipeline × data split and keeps the shortest step.
func ExampleTuneCluster() {
	a100, _ := cost.LookupGPU("a100")
	nv, _ := cost.LookupLink("nvlink3")
	ib, _ := cost.LookupLink("ib-hdr")
	net := cost.Network{Name: "gpt-small", Blocks: []cost.Block{
		{Kind: cost.Embedding, Count: 1, Hidden: 1024, Vocab: 51200},
		{Kind: cost.Decoder, Count: 4, Hidden: 1024, Heads: 16, FFN: 4096},
		{Kind: cost.Head, Count: 1, Hidden: 1024, Vocab: 51200},
	}}
	res, err := tune.TuneCluster(tune.ClusterProblem{
		Config: cost.GPUConfig{Network: net, GPU: a100, Link: nv, InterNode: ib, RanksPerNode: 8, Microbatch: 1, Sequence: 1024},
		GPUs:   16, Batch: 32, Schedules: []tune.Schedule{{Family: "1f1b", Chunks: 1}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := res.Best
	fmt.Printf("%d splits; best t %d p %d d %d: %s, %d microbatches, step %.2f ms\n",
		len(res.Splits), b.Tensor, b.Pipeline, b.Data, b.Best.Schedule, b.Best.Microbatches, 1e3*b.Iteration.Seconds)
	// Output:
	// 11 splits; best t 2 p 2 d 4: 1f1b, 8 microbatches, step 13.72 ms
}
