package charlm

import (
	"gonum.org/v1/gonum/floats"

	"github.com/pipelab/pipelab/internal/vec"
)

// The kernels the register-tiled gemmNN and gemmTN replaced, kept as the
// reference they must match bit for bit (TestTiledKernelsMatchAxpyKernels,
// TestInputGradientMatchesGemmNT): each row of the product built by one
// gonum axpy (floats.AddScaled) per (row, p), the remainders by vec.Dot;
// and gemmNT's dot products of rows.

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
		add(c[p*m:p*m+m4], sums[p*m4:p*m4+m4])
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

// gemmNT sets c[n×m] = a[n×k]·b[m×k]ᵀ, or adds the product to c if
// accumulate is set: c[i,j] = Σ_p a[i,p]·b[j,p]. It formed the input
// gradients dy·Wᵀ before gemmNN of the transposed weights did. It works on tiles of two
// rows of a by four rows of b, keeping eight sums in registers while
// streaming six operands per step of p.
func gemmNT(c, a, b []float64, n, m, k int, accumulate bool) {
	i := 0
	for ; i+2 <= n; i += 2 {
		a0 := a[i*k : i*k+k]
		a1 := a[(i+1)*k : (i+1)*k+k][:len(a0)]
		c0, c1 := c[i*m:i*m+m], c[(i+1)*m:(i+1)*m+m]
		j := 0
		for ; j+4 <= m; j += 4 {
			b0 := b[j*k : j*k+k][:len(a0)]
			b1 := b[(j+1)*k : (j+1)*k+k][:len(a0)]
			b2 := b[(j+2)*k : (j+2)*k+k][:len(a0)]
			b3 := b[(j+3)*k : (j+3)*k+k][:len(a0)]
			var s00, s01, s02, s03, s10, s11, s12, s13 float64
			for p, x0 := range a0 {
				x1 := a1[p]
				y0, y1, y2, y3 := b0[p], b1[p], b2[p], b3[p]
				s00 += float64(x0 * y0)
				s01 += float64(x0 * y1)
				s02 += float64(x0 * y2)
				s03 += float64(x0 * y3)
				s10 += float64(x1 * y0)
				s11 += float64(x1 * y1)
				s12 += float64(x1 * y2)
				s13 += float64(x1 * y3)
			}
			if accumulate {
				s00 += c0[j]
				s01 += c0[j+1]
				s02 += c0[j+2]
				s03 += c0[j+3]
				s10 += c1[j]
				s11 += c1[j+1]
				s12 += c1[j+2]
				s13 += c1[j+3]
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s00, s01, s02, s03
			c1[j], c1[j+1], c1[j+2], c1[j+3] = s10, s11, s12, s13
		}
		for ; j < m; j++ {
			bj := b[j*k : j*k+k]
			store(c0, j, vec.Dot(a0, bj), accumulate)
			store(c1, j, vec.Dot(a1, bj), accumulate)
		}
	}
	for ; i < n; i++ {
		ai := a[i*k : i*k+k]
		ci := c[i*m : i*m+m]
		for j := range ci {
			store(ci, j, vec.Dot(ai, b[j*k:j*k+k]), accumulate)
		}
	}
}

func store(c []float64, j int, v float64, accumulate bool) {
	if accumulate {
		c[j] += v
	} else {
		c[j] = v
	}
}
