package objectives

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// RandomQuadratic generates the paper's random least-squares problem
// (docs/reference.md §1.7): X ~ N(0, 1)^{n×d}, w* ~ N(0, I), y = X·w*, drawn in
// that order from the data stream of seed.
func RandomQuadratic(n, d int, seed uint64) (*Dataset, error) {
	data, _, err := plantedGaussian("random quadratic", n, d, seed)
	return data, err
}

// NewLeastSquares returns f(x) = (1/2n)‖Xx - y‖² on data, cut into stages
// blocks, with batches of batchSize rows. Its f* is 0 when the data carry
// planted weights (y = X·w*) and the least-squares minimum otherwise.
func NewLeastSquares(data *Dataset, stages, batchSize int) (*Linear, error) {
	m, err := newLinear(data, stages, batchSize, squaredLoss)
	if err != nil {
		return nil, err
	}
	m.solve = func() (float64, error) {
		if data.Truth != nil {
			return 0, nil
		}
		return leastSquaresMinimum(m)
	}
	return m, nil
}

// leastSquaresMinimum solves min ‖Xw - y‖ by QR (minimum norm is not
// needed: the value is the same for every minimiser) and returns f there.
func leastSquaresMinimum(m *Linear) (float64, error) {
	n, d := m.data.Rows, m.data.Cols
	if n < d {
		// An underdetermined system with a full-row-rank X fits y exactly;
		// a rank-deficient one is beyond what QR without pivoting solves.
		return 0, fmt.Errorf("objectives: least-squares optimum of a %d×%d system with n < d is not computed", n, d)
	}
	var qr mat.QR
	qr.Factorize(mat.NewDense(n, d, m.data.X))
	var w mat.VecDense
	if err := qr.SolveVecTo(&w, false, mat.NewVecDense(n, m.data.Y)); err != nil {
		return 0, fmt.Errorf("objectives: least-squares optimum: %w", err)
	}
	return m.Loss(w.RawVector().Data), nil
}
