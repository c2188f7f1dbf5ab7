//go:build !amd64 || purego

package vec

func blockDotsVector(out []float64, blocks [][]float64, start int, x [][]float64) bool {
	return false
}
