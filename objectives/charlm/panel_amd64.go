package charlm

// panel4x8 is the AVX kernel of gemmNN and gemmTN (panel_amd64.s): four
// rows of c by tiles·8 columns, each sum formed in order from +0 as the
// scalar 2×4 tiles form it, eight columns at a time.
//
//go:noescape
func panel4x8(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool)

func hasAVX() bool

// avx reports whether panel4x8 may run; without AVX the scalar tiles do
// all the work, with the same results.
var avx = hasAVX()

// panelsNN sets the first n&^3 rows and m&^7 columns of c[n×m] =
// a[n×k]·b[k×m] with panel4x8 and returns the number of rows done (0
// without AVX).
func panelsNN(c, a, b []float64, n, k, m int) int {
	n4, tiles := n&^3, m/8
	if !avx || n4 == 0 || tiles == 0 || k == 0 {
		return 0
	}
	_, _, _ = a[n*k-1], b[k*m-1], c[n*m-1]
	for i := 0; i < n4; i += 4 {
		panel4x8(&c[i*m], m, &a[i*k], k, 1, &b[0], m, k, tiles, false)
	}
	return n4
}

// panelsTN adds to the first k&^3 rows and m&^7 columns of c[k×m] the
// product aᵀ·b for a[n×k], b[n×m] with panel4x8 and returns the number
// of rows done (0 without AVX).
func panelsTN(c, a, b []float64, n, k, m int) int {
	k4, tiles := k&^3, m/8
	if !avx || k4 == 0 || tiles == 0 || n == 0 {
		return 0
	}
	_, _, _ = a[n*k-1], b[n*m-1], c[k*m-1]
	for p := 0; p < k4; p += 4 {
		panel4x8(&c[p*m], m, &a[p], 1, k, &b[0], m, n, tiles, true)
	}
	return k4
}
