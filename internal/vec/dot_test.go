package vec

import "testing"

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
