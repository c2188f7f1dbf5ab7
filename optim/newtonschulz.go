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
	for i := range p {
		bi := b[i*p : (i+1)*p]
		for k := range bi {
			bi[k] = nsB * a[i*p+k]
		}
		for k := range p {
			axpy(bi, nsC*a[i*p+k], a[k*p:(k+1)*p])
		}
	}
	for i := range p {
		ti := t[i*q : (i+1)*q]
		for j, v := range x[i*q : (i+1)*q] {
			ti[j] = nsA * v
		}
		for k := range p {
			axpy(ti, b[i*p+k], x[k*q:(k+1)*q])
		}
	}
	copy(x, t)
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
