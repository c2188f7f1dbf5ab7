package pipeline_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
)

// CellBound sizes a table without generating it, so a command can refuse a
// shape that would not fit in memory before it allocates anything.
func ExampleCellBound() {
	sh := pipeline.Shape{Ranks: 4, Microbatches: 8}
	bound, err := pipeline.CellBound("1f1b", sh)
	if err != nil {
		fmt.Println(err)
		return
	}
	t, _ := pipeline.Generate("1f1b", sh)
	cells := 0
	for _, row := range t.Rows {
		cells += len(row)
	}
	fmt.Printf("bound %g cells (%d bytes each); the table has %d\n", bound, pipeline.ActionBytes, cells)
	huge, _ := pipeline.CellBound("1f1b", pipeline.Shape{Ranks: 100000, Microbatches: 100000})
	fmt.Printf("P = M = 100000: %.3g cells\n", huge)
	// Output:
	// bound 112 cells (40 bytes each); the table has 82
	// P = M = 100000: 5e+10 cells
}
