package objectives

import (
	"math/rand/v2"
	"strings"
	"testing"
)

type layout struct{ mats [][]Matrix }

func (l layout) StageMatrices(s int) []Matrix               { return l.mats[s] }
func (layout) Dim() int                                     { return 20 }
func (layout) Blocks() []int                                { return []int{0, 8, 20} }
func (layout) Batches() int                                 { return 1 }
func (layout) Init() []float64                              { return make([]float64, 20) }
func (layout) Loss([]float64) float64                       { return 0 }
func (layout) Gradient(_, _ []float64, _ int, _ *rand.Rand) {}

// CheckMatrices accepts matrices inside their blocks, in order, and names
// the stage and matrix of one that is empty, overlaps or leaves its block.
func TestCheckMatrices(t *testing.T) {
	blocks := []int{0, 8, 20}
	ok := layout{[][]Matrix{{{Offset: 0, Rows: 2, Cols: 2}, {Offset: 4, Rows: 2, Cols: 2}}, {{Offset: 2, Rows: 5, Cols: 2, InputRows: true}}}}
	if err := CheckMatrices(ok, blocks); err != nil {
		t.Errorf("a fitting layout: %v", err)
	}
	for _, c := range []struct {
		mats [][]Matrix
		want string
	}{
		{[][]Matrix{{{Offset: 0, Rows: 0, Cols: 2}}, nil}, "stage 0 matrix 0 is 0×2"},
		{[][]Matrix{{{Offset: 0, Rows: 2, Cols: 2}, {Offset: 3, Rows: 1, Cols: 2}}, nil}, "stage 0 matrix 1 at 3 overlaps"},
		{[][]Matrix{nil, {{Offset: 4, Rows: 3, Cols: 3}}}, "stage 1 matrix 0 (3×3 at 4) leaves the block of 12"},
	} {
		err := CheckMatrices(layout{c.mats}, blocks)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.mats, err, c.want)
		}
	}
	if out, in := (Matrix{Rows: 2, Cols: 5, InputRows: true}).Fans(); out != 5 || in != 2 {
		t.Errorf("Fans of an in×out 2×5 matrix: %d, %d", out, in)
	}
	if out, in := (Matrix{Rows: 2, Cols: 5}).Fans(); out != 2 || in != 5 {
		t.Errorf("Fans of an out×in 2×5 matrix: %d, %d", out, in)
	}
}
