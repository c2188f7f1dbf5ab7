package objectives

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pipelab/pipelab/internal/vec"
)

// lossKind is the per-example loss of a linear model.
type lossKind uint8

const (
	squaredLoss  lossKind = iota // ½(a - y)²
	logisticLoss                 // binary cross-entropy of σ(a) against y ∈ {0, 1}
)

// Linear is a linear-model objective: the loss depends on x only through
// the activations a = X·x, f(x) = mean_i ℓ(a_i, y_i) + (λ/2)‖x‖². Batches
// are contiguous rows visited cyclically (docs/reference.md §1.7); the blocks
// are ContiguousBlocks(d, S). Build one with NewLeastSquares or
// NewLogistic. A Linear is safe for concurrent use by several runs.
//
// Besides the data set, a Linear keeps each block's columns contiguous (a
// second copy of X), as each stage of a pipeline holds its own: a stage's
// forward and backward then read one contiguous stretch of memory, which
// makes a schedule replay as fast as the bare batch gradients.
type Linear struct {
	data      *Dataset
	blocks    []int
	columns   [][]float64 // columns[s]: X[:, block s], n × len(block s) row-major
	batchSize int
	loss      lossKind
	l2        float64
	noise     float64

	optimumOnce sync.Once
	optimum     float64
	optimumErr  error
	solve       func() (float64, error)
}

func newLinear(data *Dataset, stages, batchSize int, loss lossKind) (*Linear, error) {
	switch {
	case data == nil || data.Rows == 0:
		return nil, fmt.Errorf("%w: no rows", ErrEmptyData)
	case len(data.X) != data.Rows*data.Cols || len(data.Y) != data.Rows:
		return nil, fmt.Errorf("objectives: data set of %d×%d holds %d features and %d targets", data.Rows, data.Cols, len(data.X), len(data.Y))
	case stages < 1 || stages > data.Cols:
		return nil, fmt.Errorf("objectives: %d stages for %d parameters: need 1 ≤ S ≤ d", stages, data.Cols)
	case batchSize < 1 || data.Rows%batchSize != 0:
		return nil, fmt.Errorf("objectives: %d rows do not split into batches of %d", data.Rows, batchSize)
	}
	m := &Linear{data: data, blocks: ContiguousBlocks(data.Cols, stages), batchSize: batchSize, loss: loss}
	m.columns = make([][]float64, stages)
	for s := range m.columns {
		lo, hi := m.blocks[s], m.blocks[s+1]
		c := make([]float64, 0, data.Rows*(hi-lo))
		for i := 0; i < data.Rows; i++ {
			c = append(c, data.Row(i)[lo:hi]...)
		}
		m.columns[s] = c
	}
	return m, nil
}

// Dim returns d.
func (m *Linear) Dim() int { return m.data.Cols }

// Blocks returns the S+1 block offsets.
func (m *Linear) Blocks() []int { return m.blocks }

// Batches returns n / batch size.
func (m *Linear) Batches() int { return m.data.Rows / m.batchSize }

// BatchRows returns the batch size.
func (m *Linear) BatchRows(int) int { return m.batchSize }

// Data returns the data set the objective was built on.
func (m *Linear) Data() *Dataset { return m.data }

// Init returns the zero vector, the paper's initial point.
func (m *Linear) Init() []float64 { return make([]float64, m.data.Cols) }

// Loss returns f(x) over all rows.
func (m *Linear) Loss(x []float64) float64 { return m.lossAt(m.activations(x), x) }

// activations returns X·x over all rows, the O(nd) part of the loss, through
// gonum's Gemv: its assembly kernel sums each row in two interleaved
// halves (even and odd columns) where vec.Dot sums four, so a loss agrees
// with a row-by-row vec.Dot to within the rounding of either order
// (TestActivationsWithinDotRounding), not to the bit, at 2-3 times the
// speed on the paper's 600 × 512 and 2000 × 512 data. Only logged losses
// read it; every gradient, and so every trajectory, is computed as before.
func (m *Linear) activations(x []float64) []float64 {
	a := make([]float64, m.data.Rows)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: m.data.Rows, Cols: m.data.Cols, Stride: m.data.Cols, Data: m.data.X},
		blas64.Vector{N: m.data.Cols, Inc: 1, Data: x}, 0, blas64.Vector{N: m.data.Rows, Inc: 1, Data: a})
	return a
}

// lossAt returns f given the activations a = X·x.
func (m *Linear) lossAt(a, x []float64) float64 {
	var s float64
	for i, ai := range a {
		s += m.exampleLoss(ai, m.data.Y[i])
	}
	f := s / float64(len(a))
	if m.l2 != 0 {
		f += 0.5 * m.l2 * vec.Dot(x, x)
	}
	return f
}

func (m *Linear) exampleLoss(a, y float64) float64 {
	if m.loss == squaredLoss {
		r := a - y
		return 0.5 * r * r
	}
	// max(a, 0) - a·y + log(1 + e^{-|a|}) is BCE(σ(a), y) without overflow.
	return math.Max(a, 0) - a*y + math.Log1p(math.Exp(-math.Abs(a)))
}

// Gradient writes the stochastic gradient of batch b at x into g: the
// batch gradient of the mean loss, plus λx, plus σ·N(0, 1) per coordinate
// drawn from noise in coordinate order (none when noise is nil).
func (m *Linear) Gradient(g, x []float64, b int, noise *rand.Rand) {
	act := make([]float64, m.batchSize)
	for s := 0; s+1 < len(m.blocks); s++ {
		m.Forward(act, x[m.blocks[s]:m.blocks[s+1]], b, s)
	}
	r := make([]float64, m.batchSize)
	m.OutputGradient(r, act, b)
	for s := 0; s+1 < len(m.blocks); s++ {
		lo, hi := m.blocks[s], m.blocks[s+1]
		m.BlockGradient(g[lo:hi], r, x[lo:hi], b, s, noise)
	}
}

// Forward adds X_b[:, block s]·xs to act.
func (m *Linear) Forward(act, xs []float64, b, s int) {
	vec.AddBlockDots(act, m.columns[s:s+1], b*m.batchSize, [][]float64{xs})
}

// ForwardBlocks adds X_b·z to act for a point given block by block, z[s]
// being block s: Forward for every stage in stage order, in one call, with
// the same result to the bit. It serves a replay whose point is assembled
// from blocks of different versions (RPD's stale point), where a forward
// over all S blocks runs at every iteration and the S calls would cost as
// much as their arithmetic.
func (m *Linear) ForwardBlocks(act []float64, z [][]float64, b int) {
	vec.AddBlockDots(act, m.columns, b*m.batchSize, z)
}

// OutputGradient writes dℓ/da divided by the batch size into r: the
// residual a - y for the squared loss, σ(a) - y for the logistic loss.
func (m *Linear) OutputGradient(r, act []float64, b int) {
	y := m.data.Y[b*m.batchSize : (b+1)*m.batchSize]
	inv := 1 / float64(m.batchSize)
	for i, a := range act {
		if m.loss == squaredLoss {
			r[i] = (a - y[i]) * inv
		} else {
			r[i] = (sigmoid(a) - y[i]) * inv
		}
	}
}

// BlockGradient writes X_b[:, block s]ᵀ·r + λ·xs + σ·noise into g.
//
// The product goes through vec.AddScaledRows, which adds r_i times row i
// of the batch's block to g row by row, the order of the plain loop it
// stands for (and of gonum's transposed Gemv, which ran it before), in
// AVX registers where it can: the same floating-point operations in the
// same order, so the same bits.
func (m *Linear) BlockGradient(g, r, xs []float64, b, s int, noise *rand.Rand) {
	for j := range g {
		g[j] = m.l2 * xs[j]
	}
	w := len(g)
	vec.AddScaledRows(g, m.columns[s][b*m.batchSize*w:], r)
	if m.noise != 0 && noise != nil {
		for j := range g {
			g[j] += m.noise * noise.NormFloat64()
		}
	}
}

func sigmoid(a float64) float64 {
	if a >= 0 {
		return 1 / (1 + math.Exp(-a))
	}
	e := math.Exp(a)
	return e / (1 + e)
}

// OptimalValue returns f* = min f, computed once on first use (zero for a
// quadratic with planted weights; by least squares or Newton's method
// otherwise).
func (m *Linear) OptimalValue() (float64, error) {
	m.optimumOnce.Do(func() { m.optimum, m.optimumErr = m.solve() })
	return m.optimum, m.optimumErr
}

// Track returns a tracker of f at x that follows block moves in
// O(n·block) time.
func (m *Linear) Track(x []float64) Tracker {
	return &linearTracker{m: m, act: m.activations(x)}
}

type linearTracker struct {
	m   *Linear
	act []float64
}

func (t *linearTracker) Shift(s int, delta []float64, scale float64) {
	w, c := len(delta), t.m.columns[s]
	for i := range t.act {
		t.act[i] += scale * vec.Dot(c[i*w:(i+1)*w], delta)
	}
}

func (t *linearTracker) Loss(x []float64) float64 { return t.m.lossAt(t.act, x) }
