package objectives_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipelab/pipelab/objectives"
)

// The paper's random quadratic, cut into 4 blocks with batches of 100 rows:
// the loss at the zero start is ‖y‖²/(2n), and zero at the planted weights.
func ExampleNewLeastSquares() {
	data, err := objectives.RandomQuadratic(2000, 10, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := objectives.NewLeastSquares(data, 4, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	fstar, _ := f.OptimalValue()
	fmt.Println("blocks:", f.Blocks(), "batches:", f.Batches())
	fmt.Printf("f(0) > f* = %g: %v\n", fstar, f.Loss(f.Init()) > fstar)
	fmt.Printf("f(w*) < 1e-20: %v\n", f.Loss(data.Truth) < 1e-20)
	// Output:
	// blocks: [0 3 6 8 10] batches: 20
	// f(0) > f* = 0: true
	// f(w*) < 1e-20: true
}

// A stage-at-a-time batch gradient, as a pipeline computes it: each stage
// adds its block's contribution to the activation, the last turns it into
// an output gradient, and each stage takes its block gradient from it.
func ExampleLinear_Forward() {
	data, _ := objectives.RandomLogistic(40, 6, 2)
	f, _ := objectives.NewLogistic(data, 3, 10, objectives.DefaultL2, 0)
	x := []float64{0.1, -0.2, 0.3, 0, 0.5, -0.1}
	bl := f.Blocks()
	act := make([]float64, f.BatchRows(0))
	for s := 0; s < 3; s++ {
		f.Forward(act, x[bl[s]:bl[s+1]], 0, s)
	}
	r := make([]float64, len(act))
	f.OutputGradient(r, act, 0)
	g1 := make([]float64, bl[2]-bl[1])
	f.BlockGradient(g1, r, x[bl[1]:bl[2]], 0, 1, nil)

	full := make([]float64, f.Dim())
	f.Gradient(full, x, 0, nil)
	fmt.Println("block 1 equals the full gradient's block 1:", fmt.Sprint(g1) == fmt.Sprint(full[bl[1]:bl[2]]))
	// Output:
	// block 1 equals the full gradient's block 1: true
}

// Ten coordinates over four stages: the first 10 mod 4 = 2 blocks take
// one coordinate more (docs/reference.md §1.1).
func ExampleContiguousBlocks() {
	fmt.Println(objectives.ContiguousBlocks(10, 4))
	// Output:
	// [0 3 6 8 10]
}

// The Nesterov quadratic is built so that XᵀX/n is tridiag(-1, 2, -1) + μI
// exactly up to rounding; its first row shows 2 + μ and -1.
func ExampleTridiagonalQuadratic() {
	const n, d, mu = 50, 8, 0.01
	data, err := objectives.TridiagonalQuadratic(n, d, mu, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	var a00, a01, a02 float64
	for i := range data.Rows {
		row := data.Row(i)
		a00 += row[0] * row[0] / n
		a01 += row[0] * row[1] / n
		a02 += row[0] * row[2] / n
	}
	fmt.Printf("%.6f %.6f, |A₀₂| < 1e-12: %v\n", a00, a01, math.Abs(a02) < 1e-12)
	// Output:
	// 2.010000 -1.000000, |A₀₂| < 1e-12: true
}

// A data set read from CSV text; a malformed cell is reported with its
// file, line and column.
func ExampleReadCSV() {
	x := "1, 2\n3, 4\n\n5, 6\n"
	y := "0.5\n1.5\n2.5\n"
	data, err := objectives.ReadCSV(strings.NewReader(x), "x.csv", strings.NewReader(y), "y.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(data.Rows, data.Cols, data.Row(2), data.Y)
	_, err = objectives.ReadCSV(strings.NewReader("1,2\n3,x\n"), "x.csv", strings.NewReader(y), "y.csv")
	fmt.Println(err)
	// Output:
	// 3 2 [5 6] [0.5 1.5 2.5]
	// objectives: x.csv line 2 column 2: "x" is not a number
}
