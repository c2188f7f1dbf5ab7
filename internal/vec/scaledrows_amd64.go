//go:build !purego

package vec

// addScaledRowsAVX is AddScaledRows for a width that is a positive
// multiple of 4, rows holding len(r) rows of it (scaledrows_amd64.s).
//
//go:noescape
func addScaledRowsAVX(g, rows, r []float64)

// scaledRowsVector runs AddScaledRows with AVX when the width fits the
// kernel, and reports whether it did.
func scaledRowsVector(g, rows, r []float64) bool {
	if !Kernels.AVX || Kernels.Disabled.ScaledRows || len(g)%4 != 0 {
		return false
	}
	addScaledRowsAVX(g, rows, r)
	return true
}
