//go:build !purego

package charlm

import "github.com/pipelab/pipelab/internal/vec"

// panel4x8 is the AVX kernel of gemmNN and gemmTN (panel_amd64.s): four
// rows of c by tiles·8 columns, each sum formed in order from +0 as the
// scalar 2×4 tiles form it, eight columns at a time, and then the bias
// row added if bias is not nil.
//
//go:noescape
func panel4x8(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)

// panel4x16 is panel4x8 sixteen columns at a time, with AVX-512
// (panel16_amd64.s).
//
//go:noescape
func panel4x16(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)

// panel8x16 is panel4x16 on eight rows at a time (panel8x16_amd64.s):
// each row's sums formed as panel4x16 forms them, each load of b serving
// eight rows.
//
//go:noescape
func panel8x16(c *float64, ldc int, a *float64, aRow, aStep int, b *float64, ldb, steps, tiles int, add bool, bias *float64)

// panel4x8 runs where vec.Kernels.AVX is on, panel4x16 where
// vec.Kernels.AVX512 is (panel8x16 on the
// rows of whole groups of eight, unless vec.Kernels.Disabled.Panels8x16);
// without them the scalar tiles, or the eight-column
// panels, do the work, with the same results.

// panels runs the vector panels over the first rows&^3 rows of c and its
// first m&^7 columns, four rows at a time, each panel p reading a from
// a[p·aPanel] and writing c from c[4p·m], and returns the number of rows
// done (0 without AVX). The columns go sixteen at a time with AVX-512 and
// the last eight (if m mod 16 ≥ 8) with AVX; both form every sum alike.
func panels(c, a, b, bias []float64, rows, aPanel, aRow, aStep, steps, m int, add bool) int {
	r4, tiles := rows&^3, m/8
	if !vec.Kernels.AVX || vec.Kernels.Disabled.Panels || r4 == 0 || tiles == 0 || steps == 0 {
		return 0
	}
	wide, rest := 0, tiles
	if vec.Kernels.AVX512 && !vec.Kernels.Disabled.Panels16 {
		wide, rest = tiles/2, tiles%2
	}
	var bias0, biasRest *float64
	if bias != nil {
		bias = bias[:m]
		bias0 = &bias[0]
		if rest > 0 {
			biasRest = &bias[16*wide]
		}
	}
	eight := wide > 0 && !vec.Kernels.Disabled.Panels8x16
	for i := 0; i < r4; {
		rows := 4
		if eight && i+8 <= r4 {
			rows = 8
			panel8x16(&c[i*m], m, &a[i/4*aPanel], aRow, aStep, &b[0], m, steps, wide, add, bias0)
		} else if wide > 0 {
			panel4x16(&c[i*m], m, &a[i/4*aPanel], aRow, aStep, &b[0], m, steps, wide, add, bias0)
		}
		if rest > 0 {
			for j := i; j < i+rows; j += 4 {
				panel4x8(&c[j*m+16*wide], m, &a[j/4*aPanel], aRow, aStep, &b[16*wide], m, steps, rest, add, biasRest)
			}
		}
		i += rows
	}
	return r4
}

// panelsNN sets the first n&^3 rows and m&^7 columns of c[n×m] =
// a[n×k]·b[k×m] (+ bias) with the vector panels and returns the number of
// rows done (0 without AVX).
func panelsNN(c, a, b, bias []float64, n, k, m int) int {
	if n == 0 || k == 0 || m == 0 {
		return 0
	}
	_, _, _ = a[n*k-1], b[k*m-1], c[n*m-1]
	return panels(c, a, b, bias, n, 4*k, k, 1, k, m, false)
}

// panelsTN adds to the first k&^3 rows and m&^7 columns of c[k×m] the
// product aᵀ·b for a[n×k], b[n×m] with the vector panels and returns the
// number of rows done (0 without AVX).
func panelsTN(c, a, b []float64, n, k, m int) int {
	if n == 0 || k == 0 || m == 0 {
		return 0
	}
	_, _, _ = a[n*k-1], b[n*m-1], c[k*m-1]
	return panels(c, a, b, nil, k, 4, 1, k, n, m, true)
}
