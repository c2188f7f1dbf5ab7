package pipeline_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
)

// LoopPlacement puts stage s on rank s mod P, as interleaved 1F1B does;
// VPlacement zig-zags so that the first and the last stage share rank 0,
// as ZB-V does.
func ExampleVPlacement() {
	fmt.Println("loop:", pipeline.LoopPlacement(8, 4))
	fmt.Println("v:   ", pipeline.VPlacement(8, 4))
	// Output:
	// loop: [0 1 2 3 0 1 2 3]
	// v:    [0 1 2 3 3 2 1 0]
}

// Chimera's table holds two pipelines on the same ranks: each microbatch
// flows through the stages of one of them only.
func ExampleTable_RouteOf() {
	t, err := pipeline.Generate("chimera", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("placement:", t.Placement)
	for m := range t.Microbatches {
		fmt.Printf("microbatch %d: %+v\n", m, t.RouteOf(m))
	}
	// Output:
	// placement: [0 1 1 0]
	// microbatch 0: {First:0 Last:1}
	// microbatch 1: {First:2 Last:3}
}

// ParseKind reads a kind as PyTorch writes it, and String writes it back.
func ExampleParseKind() {
	for _, s := range []string{"SEND_F", "I", "X"} {
		k, err := pipeline.ParseKind(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s is kind %d, compute %t, transfer %t\n", k, k, k.IsCompute(), k.IsComm())
	}
	// Output:
	// SEND_F is kind 5, compute false, transfer true
	// I is kind 3, compute true, transfer false
	// pipeline: unknown action kind "X"
}
