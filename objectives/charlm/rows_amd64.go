//go:build !purego

package charlm

import "github.com/pipelab/pipelab/internal/vec"

// sumRows adds rows rows of src (ld apart) to dst's first 16·blocks
// columns in order of the row, sixteen columns at a time with AVX
// (rows_amd64.s).
//
//go:noescape
func sumRows(dst, src *float64, ld, rows, blocks int)

// addVectors sets dst = x + y for the first 16·blocks values with AVX
// (rows_amd64.s).
//
//go:noescape
func addVectors(dst, x, y *float64, blocks int)

// addRowsVector does the first m&^15 columns of addRows with sumRows
// and returns how many it did (0 without AVX).
func addRowsVector(dst, src []float64, rows, m int) int {
	blocks := m / 16
	if !vec.Kernels.AVX || vec.Kernels.Disabled.Rows || blocks == 0 || rows == 0 {
		return 0
	}
	_, _ = dst[m-1], src[(rows-1)*m+m-1]
	sumRows(&dst[0], &src[0], m, rows, blocks)
	return 16 * blocks
}

// sumVector does the first len(dst)&^15 values of sum with addVectors and
// returns how many it did (0 without AVX).
func sumVector(dst, x, y []float64) int {
	blocks := len(dst) / 16
	if !vec.Kernels.AVX || vec.Kernels.Disabled.Rows || blocks == 0 {
		return 0
	}
	_, _ = x[len(dst)-1], y[len(dst)-1]
	addVectors(&dst[0], &x[0], &y[0], blocks)
	return 16 * blocks
}
