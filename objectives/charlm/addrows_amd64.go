//go:build !purego

package charlm

import "github.com/pipelab/pipelab/internal/vec"

// addColumns is addRows's AVX kernel (addrows_amd64.s): dst[j] +=
// src[i·ld + j] for i = 0..rows−1 in order, for cols columns, a multiple
// of 4.
//
//go:noescape
func addColumns(dst, src *float64, ld, rows, cols int)

// addRowsVector adds the n rows of src[n×m] to the first m&^3 values of
// dst with addColumns, each in order of the row as addRows adds them, and
// returns the number of columns done (0 without AVX, or where
// vec.Kernels.Disabled.AddRows turns it off).
func addRowsVector(dst, src []float64, n, m int) int {
	m4 := m &^ 3
	if !vec.Kernels.AVX || vec.Kernels.Disabled.AddRows || n == 0 || m4 == 0 {
		return 0
	}
	_, _ = dst[m4-1], src[(n-1)*m+m4-1]
	addColumns(&dst[0], &src[0], m, n, m4)
	return m4
}
