package objectives_test

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives"
)

// A forward at a point assembled from blocks of different versions, as
// RPD's stale point is: one call over every stage's block, the same to the
// bit as a Forward per stage.
func ExampleLinear_ForwardBlocks() {
	data, _ := objectives.RandomLogistic(40, 8, 2)
	f, _ := objectives.NewLogistic(data, 2, 10, objectives.DefaultL2, 0)
	older, newer := []float64{0.1, -0.2, 0.3, 0}, []float64{0.5, -0.1, 0.2, 0.4}
	fused := make([]float64, f.BatchRows(1))
	f.ForwardBlocks(fused, [][]float64{older, newer}, 1)

	staged := make([]float64, f.BatchRows(1))
	f.Forward(staged, older, 1, 0)
	f.Forward(staged, newer, 1, 1)
	fmt.Println("same activations:", fmt.Sprint(fused) == fmt.Sprint(staged))
	// Output:
	// same activations: true
}
