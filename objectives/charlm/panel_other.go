//go:build !amd64

package charlm

// panelsNN and panelsTN do nothing where there is no vector kernel: the
// scalar tiles of gemmNN and gemmTN do all the work.
func panelsNN(c, a, b []float64, n, k, m int) int { return 0 }

func panelsTN(c, a, b []float64, n, k, m int) int { return 0 }
