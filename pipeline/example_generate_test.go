package pipeline_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/pipelab/pipelab/pipeline"
)

// Generate builds a family's table; Render draws its unit-time grid.
func ExampleGenerate() {
	t, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 3, Microbatches: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := pipeline.Render(os.Stdout, t, pipeline.RenderOptions{Style: pipeline.PaperStyle}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// rank 0: F1 F2 F3  .  . B1 F4 B2  . B3  . B4
	// rank 1:  . F1 F2  . B1 F3 B2 F4 B3  . B4  .
	// rank 2:  .  . F1 B1 F2 B2 F3 B3 F4 B4  .  .
}

// A family that cannot build a shape says which of its constraints the
// shape breaks.
func ExampleGenerate_refused() {
	_, err := pipeline.Generate("interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 9, Chunks: 2})
	fmt.Println(err)
	// Output:
	// pipeline: interleaved-1f1b: microbatches (9) must be a multiple of the number of rounds max(1, microbatches/ranks) = 2
}

// Generated tables are timelines too: asynchronous PipeDream places each
// action in the step it runs, and its table carries the update rule.
func ExampleGenerate_pipeDream() {
	t, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 2, Microbatches: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Update, "NOAM", t.NOAM)
	_ = pipeline.Render(os.Stdout, t, pipeline.RenderOptions{Style: pipeline.PaperStyle})
	// Output:
	// per-backward NOAM 2
	// rank 0: F1 F2  . B1 F3 B2  . B3
	// rank 1:  . F1 B1 F2 B2 F3 B3  .
}

// Validate explains what is wrong and where.
func ExampleTable_Validate() {
	t := &pipeline.Table{
		Rows: [][]pipeline.Action{
			{pipeline.F(0, 0), pipeline.B(0, 0)},
			{pipeline.B(1, 0), pipeline.F(1, 0)},
		},
		Placement:    []int{0, 1},
		Microbatches: 1,
	}
	err := t.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, pipeline.ErrInvalid))
	// Output:
	// pipeline: rank 1 cell 0 (1B0): backward of microbatch 0 on stage 1 before its forward
	// true
}
