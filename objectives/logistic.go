package objectives

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The paper's logistic-regression settings (docs/reference.md §1.7).
const (
	DefaultL2    = 1e-4 // λ
	DefaultNoise = 0.5  // σ of the additive gradient noise
)

// RandomLogistic generates the paper's classification data (docs/reference.md
// §1.7): X ~ N(0, 1)^{n×d}, w* ~ N(0, I), y_i ~ Bernoulli(σ(x_i·w*)), drawn
// in that order (X, w*, then one uniform per label) from the data stream of
// seed.
func RandomLogistic(n, d int, seed uint64) (*Dataset, error) {
	data, rng, err := plantedGaussian("logistic data", n, d, seed)
	if err != nil {
		return nil, err
	}
	for i, a := range data.Y {
		if rng.Float64() < sigmoid(a) {
			data.Y[i] = 1
		} else {
			data.Y[i] = 0
		}
	}
	return data, nil
}

// NewLogistic returns f(x) = mean BCE(σ(Xx), y) + (λ/2)‖x‖² on data (labels
// 0 or 1), cut into stages blocks, with batches of batchSize rows and
// additive gradient noise σ·N(0, 1) per coordinate (σ = noise ≥ 0). Its f*
// is computed by Newton's method on first use.
func NewLogistic(data *Dataset, stages, batchSize int, l2, noise float64) (*Linear, error) {
	m, err := newLinear(data, stages, batchSize, logisticLoss)
	if err != nil {
		return nil, err
	}
	for i, y := range data.Y {
		if y != 0 && y != 1 {
			return nil, fmt.Errorf("objectives: logistic label %d is %g, want 0 or 1", i+1, y)
		}
	}
	if l2 < 0 || noise < 0 || math.IsNaN(l2) || math.IsNaN(noise) {
		return nil, fmt.Errorf("objectives: logistic λ = %g and σ = %g must be non-negative", l2, noise)
	}
	m.l2, m.noise = l2, noise
	m.solve = func() (float64, error) { return logisticMinimum(m) }
	return m, nil
}

// logisticMinimum minimises the full logistic objective by damped Newton
// steps: H = XᵀDX/n + λI with D = σ(a)(1 - σ(a)), a backtracking line search
// on f, stopping when half the Newton decrement gᵀH⁻¹g is below 1e-18 (or
// after 100 steps, which is reported as an error).
func logisticMinimum(m *Linear) (float64, error) {
	n, d := m.data.Rows, m.data.Cols
	if m.l2 == 0 {
		return 0, fmt.Errorf("objectives: logistic optimum needs λ > 0 (without it separable data have none)")
	}
	w := make([]float64, d)
	f := m.Loss(w)
	scaled := mat.NewDense(n, d, nil)
	grad := make([]float64, d)
	for iter := 0; iter < 100; iter++ {
		a := matVec(m.data.X, n, d, w)
		for j := range grad {
			grad[j] = m.l2 * w[j]
		}
		for i, ai := range a {
			p := sigmoid(ai)
			r := (p - m.data.Y[i]) / float64(n)
			row := m.data.X[i*d : (i+1)*d]
			for j, v := range row {
				grad[j] += r * v
			}
			c := math.Sqrt(p * (1 - p) / float64(n))
			out := scaled.RawRowView(i)
			for j, v := range row {
				out[j] = c * v
			}
		}
		h := mat.NewSymDense(d, nil)
		h.SymOuterK(1, scaled.T())
		for j := 0; j < d; j++ {
			h.SetSym(j, j, h.At(j, j)+m.l2)
		}
		var chol mat.Cholesky
		if !chol.Factorize(h) {
			return 0, fmt.Errorf("objectives: logistic optimum: Hessian not positive definite at step %d", iter)
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, mat.NewVecDense(d, grad)); err != nil {
			return 0, fmt.Errorf("objectives: logistic optimum: %w", err)
		}
		// Half the Newton decrement estimates f - f*; below 1e-18 the
		// value is exact to float64 precision for f of order 1e-3 or more.
		decrease := vec.Dot(grad, step.RawVector().Data)
		if decrease/2 < 1e-18 {
			return f, nil
		}
		t, trial := 1.0, make([]float64, d)
		for {
			for j := range trial {
				trial[j] = w[j] - t*step.AtVec(j)
			}
			ft := m.Loss(trial)
			if ft <= f-0.25*t*decrease || t < 1e-12 {
				w, f = trial, ft
				break
			}
			t /= 2
		}
	}
	return 0, fmt.Errorf("objectives: logistic optimum: Newton's method did not converge in 100 steps")
}
