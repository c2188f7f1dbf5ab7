//go:build !purego

package vec

//go:noescape
func fmaLoop256(iterations int)

//go:noescape
func fmaLoop512(iterations int)

//go:noescape
func mulAddLoop512(iterations int)

// peakLoop runs loop's iterations rounds where the processor has its
// instructions and returns the floating-point operations done, 0 where it
// has not.
func peakLoop(loop PeakLoop, iterations int) float64 {
	switch {
	case loop == FMA256 && Kernels.AVX2FMA:
		fmaLoop256(iterations)
		return float64(iterations) * 12 * 4 * 2
	case loop == FMA512 && Kernels.AVX512:
		fmaLoop512(iterations)
		return float64(iterations) * 12 * 8 * 2
	case loop == MulAdd512 && Kernels.AVX512:
		mulAddLoop512(iterations)
		return float64(iterations) * 12 * 8 * 2
	}
	return 0
}
