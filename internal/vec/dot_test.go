package vec

import (
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
