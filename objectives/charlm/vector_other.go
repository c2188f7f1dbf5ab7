//go:build !amd64 || purego

package charlm

import "math"

// The scalar side of the amd64 vector kernels (panel_amd64.go,
// erf_amd64.go, exp_amd64.go).

// panelsNN and panelsTN do nothing where there is no vector kernel: the
// scalar tiles of gemmNN and gemmTN do all the work.
func panelsNN(c, a, b, bias []float64, n, k, m int) int { return 0 }

func panelsTN(c, a, b []float64, n, k, m int) int { return 0 }

// addRowsVector does nothing where there is no vector kernel: addRows
// adds every column.
func addRowsVector(dst, src []float64, n, m int) int { return 0 }

// erfVector does nothing where there is no vector kernel: erfScalar does
// all of erfInto's work.
func erfVector(dst, prod, src []float64, div float64, cdf bool) int { return 0 }

// expInto sets dst[i] = math.Exp(src[i]) for every i (dst may be src).
func expInto(dst, src []float64) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = math.Exp(x)
	}
}
