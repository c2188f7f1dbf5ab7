package charlm

import (
	"gonum.org/v1/gonum/floats"

	"pipelab/internal/vec"
)

// The kernels the register-tiled gemmNN and gemmTN replaced, kept as the
// reference they must match bit for bit (TestTiledKernelsMatchAxpyKernels):
// each row of the product built by one gonum axpy (floats.AddScaled) per
// (row, p), the remainders by vec.Dot.

// axpyScratch is the old kernels' scratch: a for the transposed operand or
// a column, b for gemmTN's sums.
type axpyScratch struct {
	a, b []float64
}

// gemmNN sets c[n×m] = a[n×k]·b[k×m]: each row of c is the sum, in the
// order of p, of the rows b[p,:] scaled by a[i,p], taken with gonum's
// vectorised axpy (floats.AddScaled). Each c[i,j] is then the sequential
// sum Σ_p a[i,p]·b[p,j] that gemmNT's register tiles form; where gemmNT
// takes vec.Dot's four partial sums instead (the last m mod 4 columns,
// and the last row when n is odd), so does gemmNN, on b's columns: the
// result is gemmNT's with bᵀ, bit for bit.
func gemmNNAxpy(c, a, b []float64, n, k, m int, s *axpyScratch) {
	n2, m4 := n&^1, m&^3
	for i := 0; i < n2; i++ {
		ci := c[i*m : i*m+m4]
		clear(ci)
		for p, v := range a[i*k : i*k+k] {
			floats.AddScaled(ci, v, b[p*m:p*m+m4])
		}
	}
	col := grow(&s.a, k)
	for j := range m {
		if j < m4 && n2 == n {
			continue
		}
		for p := range k {
			col[p] = b[p*m+j]
		}
		for i := range n {
			if j >= m4 || i >= n2 {
				c[i*m+j] = vec.Dot(a[i*k:i*k+k], col)
			}
		}
	}
}

// gemmTN adds aᵀ·b to c[k×m] for a[n×k] and b[n×m]: c[p,j] += Σ_i
// a[i,p]·b[i,j], the sum over i in order (with vec.Dot's partial sums
// where gemmNT on the transposed operands takes them: the last m mod 4
// columns and, for an odd k, the last row), added to c[p,j] when
// complete, so that the result is gemmNT's bit for bit.
func gemmTNAxpy(c, a, b []float64, n, k, m int, s *axpyScratch) {
	k2, m4 := k&^1, m&^3
	sums := grow(&s.b, k2*m4)
	clear(sums)
	for i := 0; i < n; i++ {
		bi := b[i*m : i*m+m4]
		for p, v := range a[i*k : i*k+k2] {
			floats.AddScaled(sums[p*m4:p*m4+m4], v, bi)
		}
	}
	for p := range k2 {
		axpy(c[p*m:p*m+m4], sums[p*m4:p*m4+m4], 1)
	}
	if k2 == k && m4 == m {
		return
	}
	aT := grow(&s.a, k*n+n)
	transpose(aT, a, n, k)
	col := aT[k*n:]
	for j := range m {
		if j < m4 && k2 == k {
			continue
		}
		for i := range n {
			col[i] = b[i*m+j]
		}
		for p := range k {
			if j >= m4 || p >= k2 {
				c[p*m+j] += vec.Dot(aT[p*n:p*n+n], col)
			}
		}
	}
}
