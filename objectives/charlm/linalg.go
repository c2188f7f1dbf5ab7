package charlm

import "github.com/pipelab/pipelab/internal/vec"

// The dense kernels below work on row-major matrices held in flat slices:
// gemmNN forms the products with the weights (x·W, and dy·Wᵀ with W
// transposed), gemmTN the weight gradients (xᵀ·dy), each reading four
// (scalar), eight (AVX) or sixteen (AVX-512) contiguous values of a row at
// a time and keeping a tile of sums in registers, every sum formed in a
// fixed order.

// linearScratch holds the transposed operand or column the remainders of
// the linear maps read (a) and the transposed weights of the input
// gradient (b). Its buffers grow to the largest operand on first use and
// are reused after.
type linearScratch struct {
	a, b []float64
	// rows, when it holds more than one, are the scratches of the
	// goroutines gemmNN spreads its rows over (Config.Workers).
	rows []linearScratch
}

// grow returns (*buf)[:n], reallocating *buf if it is shorter.
func grow(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// linearForward sets out[n×m] = in[n×k]·w[k×m] + bias (bias may be nil),
// each element the complete sum plus its bias, as adding the bias rows
// after the product did.
func linearForward(out, in, w, bias []float64, n, k, m int, s *linearScratch) {
	gemmNN(out, in, w, bias, n, k, m, s)
}

// linearBackward accumulates the gradients of out = in·w + bias given
// dout: dw += inᵀ·dout, dbias += Σ_rows dout (if dbias is not nil), and,
// if din is not nil, sets din = dout·wᵀ, as gemmNN of dout and the
// transposed w (each sum formed as gemmNT, the dot product kernel it
// replaced, formed it: TestInputGradientMatchesGemmNT). The sums of dw run over the rows
// in order and are then added to dw, so that a zero dw (every weight of
// the model is used once per pass) receives exactly the sums gemmNT formed.
func linearBackward(din, dw, dbias, dout, in, w []float64, n, k, m int, s *linearScratch) {
	if dbias != nil {
		addRows(dbias, dout, n, m)
	}
	if dw != nil {
		gemmTN(dw, in, dout, n, k, m, s)
	}
	if din != nil {
		wT := grow(&s.b, m*k)
		transpose(wT, w, k, m)
		gemmNN(din, dout, wT, nil, n, m, k, s)
	}
}

// gemmNN sets c[n×m] = a[n×k]·b[k×m], then adds bias[j] to every c[i,j]
// if bias is not nil (in the panels' and tiles' stores, each to the
// complete sum). Where the processor has AVX, panels of four rows by
// sixteen (panel4x16, AVX-512) or eight (panel4x8) columns form the first
// n&^3 rows' first m&^7 columns, sixteen or eight sums per vector
// instruction, each as the scalar tiles form it. The scalar tiles take two rows of a by four
// columns of b, keeping the eight sums in registers while it
// streams a's two rows and four values of each row of b: each c[i,j] is
// the sequential sum Σ_p a[i,p]·b[p,j] that gemmNT's register tiles
// formed (linalg_reference_test.go). Where gemmNT takes vec.Dot's four partial sums instead (the last m mod
// 4 columns, and the last row when n is odd), so does gemmNN, on b's
// columns: the result is gemmNT's with bᵀ, bit for bit.
func gemmNN(c, a, b, bias []float64, n, k, m int, s *linearScratch) {
	if len(s.rows) > 1 && n*k*m >= parallelFMAs {
		parallelRows(c, a, b, bias, n, k, m, s.rows)
		return
	}
	gemmNNRows(c, a, b, bias, n, k, m, s)
}

// gemmNNRows is gemmNN on one goroutine.
func gemmNNRows(c, a, b, bias []float64, n, k, m int, s *linearScratch) {
	n2, m4 := n&^1, m&^3
	if bias != nil {
		bias = bias[:m]
	}
	done := panelsNN(c, a, b, bias, n, k, m)
	for i := 0; i < n2; i += 2 {
		a0 := a[i*k : i*k+k]
		a1 := a[(i+1)*k : (i+1)*k+k][:len(a0)]
		c0, c1 := c[i*m:i*m+m4], c[(i+1)*m:(i+1)*m+m4]
		for j := skipped(i, done, m); j < m4; j += 4 {
			var s00, s01, s02, s03, s10, s11, s12, s13 float64
			o := j
			for p, x0 := range a0 {
				x1 := a1[p]
				y := b[o : o+4 : o+4]
				s00 += float64(x0 * y[0])
				s01 += float64(x0 * y[1])
				s02 += float64(x0 * y[2])
				s03 += float64(x0 * y[3])
				s10 += float64(x1 * y[0])
				s11 += float64(x1 * y[1])
				s12 += float64(x1 * y[2])
				s13 += float64(x1 * y[3])
				o += m
			}
			if bias != nil {
				y := bias[j : j+4 : j+4]
				s00 += y[0]
				s01 += y[1]
				s02 += y[2]
				s03 += y[3]
				s10 += y[0]
				s11 += y[1]
				s12 += y[2]
				s13 += y[3]
			}
			d0, d1 := c0[j:j+4:j+4], c1[j:j+4:j+4]
			d0[0], d0[1], d0[2], d0[3] = s00, s01, s02, s03
			d1[0], d1[1], d1[2], d1[3] = s10, s11, s12, s13
		}
	}
	if n2 == n && m4 == m {
		return
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
				v := vec.Dot(a[i*k:i*k+k], col)
				if bias != nil {
					v += bias[j]
				}
				c[i*m+j] = v
			}
		}
	}
}

// gemmTN adds aᵀ·b to c[k×m] for a[n×k] and b[n×m]: c[p,j] += Σ_i
// a[i,p]·b[i,j]. Vector panels of four columns of a by sixteen or eight
// of b where the processor has AVX (as in gemmNN), and scalar tiles of two by four
// elsewhere, keep the sums in registers over i, each formed in order from zero and added to c[p,j]
// when complete; where gemmNT on the transposed operands takes vec.Dot's
// partial sums (the last m mod 4 columns and, for an odd k, the last
// row), so does gemmTN, so that the result is gemmNT's bit for bit.
func gemmTN(c, a, b []float64, n, k, m int, s *linearScratch) {
	k2, m4 := k&^1, m&^3
	a = a[:n*k]
	b = b[:n*m]
	done := panelsTN(c, a, b, n, k, m)
	for p := 0; p < k2; p += 2 {
		c0, c1 := c[p*m:p*m+m4], c[(p+1)*m:(p+1)*m+m4]
		for j := skipped(p, done, m); j < m4; j += 4 {
			var s00, s01, s02, s03, s10, s11, s12, s13 float64
			oa, ob := p, j
			for range n {
				x := a[oa : oa+2 : oa+2]
				y := b[ob : ob+4 : ob+4]
				x0, x1 := x[0], x[1]
				s00 += float64(x0 * y[0])
				s01 += float64(x0 * y[1])
				s02 += float64(x0 * y[2])
				s03 += float64(x0 * y[3])
				s10 += float64(x1 * y[0])
				s11 += float64(x1 * y[1])
				s12 += float64(x1 * y[2])
				s13 += float64(x1 * y[3])
				oa += k
				ob += m
			}
			d0, d1 := c0[j:j+4:j+4], c1[j:j+4:j+4]
			d0[0] += s00
			d0[1] += s01
			d0[2] += s02
			d0[3] += s03
			d1[0] += s10
			d1[1] += s11
			d1[2] += s12
			d1[3] += s13
		}
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

// skipped is the first column the scalar tiles of row i compute when the
// vector panels did the first done rows' first m&^7 columns.
func skipped(i, done, m int) int {
	if i < done {
		return m &^ 7
	}
	return 0
}

// transpose sets dst[cols×rows] = src[rows×cols]ᵀ, four rows of src at a
// time, so that each write is four adjacent values of a row of dst: at
// the remedies shape's 16×48 about 4× faster than the tiles of 16 it
// replaced, one row at a time (docs/charlm.md, BenchmarkTranspose).
func transpose(dst, src []float64, rows, cols int) {
	dst = dst[:rows*cols]
	i := 0
	for ; i+4 <= rows; i += 4 {
		r0 := src[i*cols : i*cols+cols]
		r1 := src[(i+1)*cols : (i+2)*cols][:len(r0)]
		r2 := src[(i+2)*cols : (i+3)*cols][:len(r0)]
		r3 := src[(i+3)*cols : (i+4)*cols][:len(r0)]
		o := i
		for j, v := range r0 {
			d := dst[o : o+4 : o+4]
			d[0], d[1], d[2], d[3] = v, r1[j], r2[j], r3[j]
			o += rows
		}
	}
	for ; i < rows; i++ {
		for j, v := range src[i*cols : i*cols+cols] {
			dst[j*rows+i] = v
		}
	}
}

// addRows adds the n rows of src[n×m] to dst[:m] one after the other, in
// order of the row (each dst[j] the sequence of additions adding one row
// at a time forms): the bias gradients. Where the processor has AVX,
// addRowsVector does the first m&^3 columns, each sum formed alike.
func addRows(dst, src []float64, n, m int) {
	dst = dst[:m]
	j := addRowsVector(dst, src, n, m)
	if j == m {
		return
	}
	for i := 0; i < n; i++ {
		add(dst[j:], src[i*m+j:i*m+m])
	}
}

// sum sets dst = x + y for len(x), len(y) ≥ len(dst): the residual
// connections.
func sum(dst, x, y []float64) {
	x, y = x[:len(dst)], y[:len(dst)]
	for j := range dst {
		dst[j] = x[j] + y[j]
	}
}

// add sets y += x for len(x) ≥ len(y): the bias rows, the embedding's
// position rows and their gradients. It is small enough to be inlined, so
// a row costs no call (y + 1·x, as the axpy it replaced formed it, is
// y + x).
func add(y, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += x[i]
	}
}
