package vec

import (
	"fmt"
	"math"
	"testing"
)

// The expected values are the plain left-to-right sums, exact here because
// every product and partial sum is a small integer.
func TestDot(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{nil, nil, 0},
		{[]float64{2}, []float64{3, 99}, 6},
		{[]float64{1, 2, 3, 4, 5, 6, 7}, []float64{7, 6, 5, 4, 3, 2, 1}, 84},
	} {
		if got := Dot(tc.a, tc.b); got != tc.want {
			t.Errorf("Dot(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// AddDots must equal Dot row by row to the bit: widths below, at and past
// the four-way unrolling, with signed zeros and values whose sums round.
func TestAddDotsIsDotPerRow(t *testing.T) {
	for _, w := range []int{1, 3, 4, 5, 7, 8, 9, 13, 64} {
		const n = 7
		rows, x := make([]float64, n*w), make([]float64, w)
		for j := range x {
			x[j] = math.Sin(float64(3*j+1)) * math.Pow(10, float64(j%5-2))
		}
		for i := range rows {
			rows[i] = math.Cos(float64(7*i+2)) / float64(i%3+1)
			if i < w || i%11 == 0 {
				rows[i] = math.Copysign(0, -x[i%w]) // a product of -0
			}
		}
		out, want := make([]float64, n), make([]float64, n)
		for i := range out {
			out[i] = float64(i) / 3
			if i == 0 {
				// Row 0's products are all -0: Dot sums them to +0, and
				// -0 + +0 is +0 where -0 + -0 would stay -0.
				out[i] = math.Copysign(0, -1)
			}
			want[i] = out[i] + Dot(rows[i*w:(i+1)*w], x)
		}
		AddDots(out, rows, x)
		for i := range out {
			if math.Float64bits(out[i]) != math.Float64bits(want[i]) {
				t.Errorf("w = %d, row %d: AddDots %.17g, Dot %.17g", w, i, out[i], want[i])
			}
		}
	}
}

// StridedDots must equal Dot row by row to the bit, at the unrolled width
// 4 and beside it, with products of -0 whose sum Dot makes +0.
func TestStridedDotsIsDotPerRow(t *testing.T) {
	for _, w := range []int{1, 3, 4, 5, 8, 9} {
		const n, stride = 6, 13
		rows, x := make([]float64, (n-1)*stride+w), make([]float64, w)
		for j := range x {
			x[j] = math.Sin(float64(5*j+2)) * math.Pow(10, float64(j%4-2))
		}
		for i := range rows {
			rows[i] = math.Cos(float64(3*i+1)) / float64(i%5+1)
			if i < w {
				rows[i] = math.Copysign(0, -x[i]) // row 0: every product -0
			}
		}
		out := make([]float64, n)
		StridedDots(out, x, rows, stride)
		for u := range out {
			want := Dot(x, rows[u*stride:u*stride+w])
			if math.Float64bits(out[u]) != math.Float64bits(want) {
				t.Errorf("w = %d, row %d: StridedDots %.17g, Dot %.17g", w, u, out[u], want)
			}
		}
		if math.Signbit(out[0]) {
			t.Errorf("w = %d: row of -0 products summed to -0, Dot gives +0", w)
		}
	}
}

func ExampleStridedDots() {
	// Two rows of width 2, three values apart: (1, 2) and (4, 5).
	rows := []float64{1, 2, 0, 4, 5}
	out := make([]float64, 2)
	StridedDots(out, []float64{10, 1}, rows, 3)
	fmt.Println(out)
	// Output: [12 45]
}
