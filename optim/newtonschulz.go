package optim

import "math"

// The quintic Newton-Schulz iteration of Muon (Jordan et al. 2024; the
// reference's zeropower_via_newtonschulz5 and torch.optim.Muon's
// defaults): X ← a·X + (b·A + c·A²)·X with A = X·Xᵀ, five times, from X =
// G/(‖G‖_F + ε), on G or its transpose, whichever has no more rows than
// columns. The coefficients are tuned for speed, not convergence: the
// singular values of the result lie roughly in [0.7, 1.2] instead of
// converging to 1 (docs/methods.md).
const (
	nsA, nsB, nsC = 3.4445, -4.7750, 2.0315
	nsSteps       = 5
	nsEps         = 1e-7
)

// newtonSchulz holds the iteration's workspaces, reused across calls.
type newtonSchulz struct {
	x, a, b, t []float64
}

// orthogonalize writes into out the Newton-Schulz orthogonalisation of
// the rows×cols row-major matrix g (out may not alias g).
func (ns *newtonSchulz) orthogonalize(out, g []float64, rows, cols int) {
	p, q, transposed := rows, cols, rows > cols
	if transposed {
		p, q = cols, rows
	}
	ns.x, ns.t = resize(ns.x, p*q), resize(ns.t, p*q)
	ns.a, ns.b = resize(ns.a, p*p), resize(ns.b, p*p)
	x := ns.x
	if transposed {
		transpose(x, g, rows, cols)
	} else {
		copy(x, g)
	}
	var sq float64
	for _, v := range x {
		sq += v * v
	}
	inv := 1 / (math.Sqrt(sq) + nsEps)
	for i := range x {
		x[i] *= inv
	}
	for range nsSteps {
		ns.step(p, q)
	}
	if transposed {
		transpose(out, x, p, q)
	} else {
		copy(out, x)
	}
}

// step is one iteration on ns.x (p×q): A = X·Xᵀ, B = b·A + c·A·A, X ← a·X
// + B·X.
func (ns *newtonSchulz) step(p, q int) {
	x, a, b, t := ns.x, ns.a, ns.b, ns.t
	for i := range p {
		xi := x[i*q : (i+1)*q]
		for k := i; k < p; k++ {
			a[i*p+k] = dot(xi, x[k*q:(k+1)*q])
			a[k*p+i] = a[i*p+k]
		}
	}
	for i, v := range a[:p*p] {
		b[i] = nsB * v
	}
	mulAdd(b, a, a, p, p, nsC)
	for i, v := range x[:p*q] {
		t[i] = nsA * v
	}
	mulAdd(t, b, x, p, q, 1)
	copy(x, t)
}

// mulAdd adds alpha·L·R to C, L p×p, R and C p×n, row-major: C's row i
// gains alpha·L[i,k]·R's row k for k = 0, 1, .. in that order, each
// element summed in the same order as one axpy per (i, k) would, four
// rows of C at a time so that each element of R read serves four.
func mulAdd(c, l, r []float64, p, n int, alpha float64) {
	i := 0
	for ; i+4 <= p; i += 4 {
		c0, c1, c2, c3 := c[i*n:(i+1)*n], c[(i+1)*n:(i+2)*n], c[(i+2)*n:(i+3)*n], c[(i+3)*n:(i+4)*n]
		for k := range p {
			l0, l1, l2, l3 := alpha*l[i*p+k], alpha*l[(i+1)*p+k], alpha*l[(i+2)*p+k], alpha*l[(i+3)*p+k]
			rk := r[k*n : (k+1)*n]
			c0, c1, c2, c3 = c0[:len(rk)], c1[:len(rk)], c2[:len(rk)], c3[:len(rk)]
			for j, v := range rk {
				c0[j] += l0 * v
				c1[j] += l1 * v
				c2[j] += l2 * v
				c3[j] += l3 * v
			}
		}
	}
	for ; i < p; i++ {
		ci := c[i*n : (i+1)*n]
		for k := range p {
			axpy(ci, alpha*l[i*p+k], r[k*n:(k+1)*n])
		}
	}
}

// transpose writes the cols×rows transpose of the rows×cols matrix src
// into dst.
func transpose(dst, src []float64, rows, cols int) {
	for i := range rows {
		for j, v := range src[i*cols : (i+1)*cols] {
			dst[j*rows+i] = v
		}
	}
}

// dot is Σ u[j]·v[j], four running sums (a fixed order, so the result is
// deterministic).
func dot(u, v []float64) float64 {
	v = v[:len(u)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(u); j += 4 {
		s0 += u[j] * v[j]
		s1 += u[j+1] * v[j+1]
		s2 += u[j+2] * v[j+2]
		s3 += u[j+3] * v[j+3]
	}
	for ; j < len(u); j++ {
		s0 += u[j] * v[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds alpha·x to y.
func axpy(y []float64, alpha float64, x []float64) {
	y = y[:len(x)]
	j := 0
	for ; j+4 <= len(x); j += 4 {
		y[j] += alpha * x[j]
		y[j+1] += alpha * x[j+1]
		y[j+2] += alpha * x[j+2]
		y[j+3] += alpha * x[j+3]
	}
	for ; j < len(x); j++ {
		y[j] += alpha * x[j]
	}
}
