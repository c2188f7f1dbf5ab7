package objectives

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// TridiagonalQuadratic generates the paper's Nesterov quadratic
// (docs/reference.md §1.7): A = tridiag(-1, 2, -1) + μI, X = √n·Q·chol(A)ᵀ with Q
// the orthonormal QR factor of a Gaussian n×d matrix, so XᵀX/n = A exactly
// up to rounding, and y = X·w* with w* ~ N(0, I). The Gaussian matrix, then
// w*, are drawn from the data stream of seed. It needs n ≥ d and μ > 0.
func TridiagonalQuadratic(n, d int, mu float64, seed uint64) (*Dataset, error) {
	if d < 1 || n < d {
		return nil, fmt.Errorf("objectives: tridiagonal quadratic of %d×%d: need 1 ≤ d ≤ n", n, d)
	}
	if !(mu > 0) {
		return nil, fmt.Errorf("objectives: tridiagonal quadratic: μ = %g must be positive", mu)
	}
	rng := NewRand(seed, StreamData)
	g := mat.NewDense(n, d, gaussianMatrix(n, d, rng))
	w := gaussianVector(d, rng)

	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	qd := q.Slice(0, n, 0, d)

	a := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		a.SetSym(i, i, 2+mu)
		if i+1 < d {
			a.SetSym(i, i+1, -1)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		return nil, fmt.Errorf("objectives: tridiagonal quadratic: A is not positive definite for μ = %g", mu)
	}
	var l mat.TriDense
	chol.LTo(&l)

	var x mat.Dense
	x.Mul(qd, l.T())
	x.Scale(math.Sqrt(float64(n)), &x)
	xs := make([]float64, 0, n*d)
	for i := 0; i < n; i++ {
		xs = append(xs, x.RawRowView(i)...)
	}
	return &Dataset{Rows: n, Cols: d, X: xs, Y: matVec(xs, n, d, w), Truth: w}, nil
}
