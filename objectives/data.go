package objectives

import (
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math/rand/v2"
)

// Stream names one of a run's independent random streams. A run seeded
// with seed draws stream st from rand.NewPCG(seed, uint64(st)), so the data,
// the gradient noise and the sampling of a run never share draws, and no
// two runs share a stream.
type Stream uint64

// The named streams of a run (docs/design.md, "Conventions kept throughout": randomness).
const (
	StreamData     Stream = iota + 1 // synthetic data sets
	StreamNoise                      // additive gradient noise
	StreamSampling                   // RPD's stage, batch and delay draws
)

// NewRand returns the generator of stream st of the run seeded with seed.
func NewRand(seed uint64, st Stream) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(st)))
}

// Dataset is a design matrix and its targets: Rows examples of Cols
// features, X stored row-major (row i is X[i*Cols:(i+1)*Cols]).
type Dataset struct {
	Rows, Cols int
	X          []float64
	Y          []float64
	// Truth holds the planted weights w* of a generated data set and is nil
	// for loaded data. For the quadratics y = X·w* exactly, so f* = 0.
	Truth []float64
}

// Row returns example i's features.
func (d *Dataset) Row(i int) []float64 { return d.X[i*d.Cols : (i+1)*d.Cols] }

// plantedGaussian draws X ~ N(0, 1)^{n×d}, then w* ~ N(0, I), from the data
// stream of seed and returns the data set with y = X·w* and w* as its Truth,
// with the stream positioned after those draws for generators that go on
// drawing (the logistic labels). what names the generator in errors.
func plantedGaussian(what string, n, d int, seed uint64) (*Dataset, *rand.Rand, error) {
	if n < 1 || d < 1 {
		return nil, nil, fmt.Errorf("objectives: %s of %d×%d: sizes must be positive", what, n, d)
	}
	rng := NewRand(seed, StreamData)
	x := gaussianMatrix(n, d, rng)
	w := gaussianVector(d, rng)
	return &Dataset{Rows: n, Cols: d, X: x, Y: matVec(x, n, d, w), Truth: w}, rng, nil
}

// gaussianMatrix draws an n×d matrix of independent N(0, 1) entries,
// row-major, from rng.
func gaussianMatrix(n, d int, rng *rand.Rand) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// gaussianVector draws d independent N(0, 1) values from rng.
func gaussianVector(d int, rng *rand.Rand) []float64 { return gaussianMatrix(1, d, rng) }

// matVec returns X·w for a row-major n×d matrix X.
func matVec(x []float64, n, d int, w []float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = vec.Dot(x[i*d:(i+1)*d], w)
	}
	return out
}

// ErrEmptyData is returned when a data file or a data set holds no rows.
var ErrEmptyData = errors.New("objectives: empty data")
