package charlm

import "math"

// finiteDifference returns the central-difference estimate
// (f(x+h·e_i) - f(x-h·e_i))/(2h) of ∂f/∂x_i for every i in idx, restoring
// x afterwards. With h = 1e-5 in float64 the truncation error is O(h²)
// and the rounding error about 1e-16·|f|/h, both far below 1e-6 of a
// gradient of order 1e-3 or more.
func finiteDifference(f func() float64, x []float64, idx []int) []float64 {
	const h = 1e-5
	out := make([]float64, len(idx))
	for k, i := range idx {
		orig := x[i]
		x[i] = orig + h
		plus := f()
		x[i] = orig - h
		minus := f()
		x[i] = orig
		out[k] = (plus - minus) / (2 * h)
	}
	return out
}

// relativeError returns ‖a - n‖₂ / ‖n‖₂, the analytic gradient's error
// relative to the numerical one (‖a‖₂ if n is zero).
func relativeError(analytic, numeric []float64) float64 {
	var diff, norm float64
	for i := range numeric {
		diff += (analytic[i] - numeric[i]) * (analytic[i] - numeric[i])
		norm += numeric[i] * numeric[i]
	}
	if norm == 0 {
		return math.Sqrt(diff)
	}
	return math.Sqrt(diff / norm)
}

func indices(lo, hi int) []int {
	idx := make([]int, hi-lo)
	for i := range idx {
		idx[i] = lo + i
	}
	return idx
}
