package objectives

import (
	"fmt"
	"math"
)

// NewNoisyLeastSquares is NewLeastSquares with NewLogistic's additive
// gradient noise σ·N(0, 1) per coordinate (σ = noise ≥ 0): a stochastic
// gradient whose noise does not vanish at the optimum, as the planted
// y = X·w* would otherwise make it. The loss, f and f* are those of
// NewLeastSquares.
func NewNoisyLeastSquares(data *Dataset, stages, batchSize int, noise float64) (*Linear, error) {
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return nil, fmt.Errorf("objectives: least-squares σ = %g must be finite and non-negative", noise)
	}
	m, err := NewLeastSquares(data, stages, batchSize)
	if err != nil {
		return nil, err
	}
	m.noise = noise
	return m, nil
}
