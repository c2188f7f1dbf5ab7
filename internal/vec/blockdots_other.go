//go:build !amd64

package vec

// avx is false where there are no vector kernels.
var avx = false

func blockDotsVector(out []float64, blocks [][]float64, start int, x [][]float64) bool {
	return false
}
