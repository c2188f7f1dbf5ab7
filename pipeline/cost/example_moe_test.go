package cost_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// A DeepSeek-V3 config: its 671B parameters, the ones a token runs
// through (8 of 256 routed experts, the shared one, the latent attention,
// the embedding and the head), and its layers.
func ExampleNetwork_ActiveParams() {
	net, err := cost.ReadHFConfig("testdata/hf/deepseek-v3.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(net.Describe())
	fmt.Printf("%.1fB parameters, %.1fB a token\n", net.Params()/1e9, net.ActiveParams()/1e9)
	// Output:
	// embedding, 3×decoder, 58×moe, head
	// 671.0B parameters, 37.6B a token
}

// One all-to-all of 64 MiB per GPU: over the 8 GPUs of a node on NVLink,
// and over 64 GPUs in 8 nodes, where 7/8 of the bytes cross InfiniBand.
func ExampleExpertParallel_AllToAllTime() {
	const bytes = 64 << 20
	for _, degree := range []int{8, 64} {
		fmt.Printf("EP %d: %.0f µs\n", degree, cost.ExpertParallelOn(degree).AllToAllTime(bytes)*1e6)
	}
	// Output:
	// EP 8: 133 µs
	// EP 64: 1179 µs
}
