package objectives

import (
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"slices"
	"testing"
)

// smallProblems returns one objective of each linear kind, small enough to
// check against finite differences.
func smallProblems(t *testing.T) map[string]*Linear {
	t.Helper()
	q, err := RandomQuadratic(12, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	tri, err := TridiagonalQuadratic(12, 7, 0.01, 2)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := RandomLogistic(12, 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Linear{}
	if out["quadratic"], err = NewLeastSquares(q, 3, 4); err != nil {
		t.Fatal(err)
	}
	if out["tridiagonal"], err = NewLeastSquares(tri, 3, 4); err != nil {
		t.Fatal(err)
	}
	if out["logistic"], err = NewLogistic(lg, 3, 4, 0.1, 0.5); err != nil {
		t.Fatal(err)
	}
	return out
}

// batchLoss is the mean loss of batch b plus the L2 term, written out
// directly from the definitions of docs/reference.md §1.7 as an independent
// computation for the gradient checks.
func batchLoss(m *Linear, x []float64, b int) float64 {
	var s float64
	for i := b * m.batchSize; i < (b+1)*m.batchSize; i++ {
		a := vec.Dot(m.data.Row(i), x)
		y := m.data.Y[i]
		if m.loss == squaredLoss {
			s += 0.5 * (a - y) * (a - y)
		} else {
			p := 1 / (1 + math.Exp(-a))
			s -= y*math.Log(p) + (1-y)*math.Log(1-p)
		}
	}
	return s/float64(m.batchSize) + 0.5*m.l2*vec.Dot(x, x)
}

func pointFor(m *Linear) []float64 {
	x := make([]float64, m.Dim())
	for i := range x {
		x[i] = 0.3*math.Sin(float64(i+1)) - 0.1
	}
	return x
}

// The batch gradient (noise off) matches central differences of the batch
// loss written from the definition.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	for name, m := range smallProblems(t) {
		t.Run(name, func(t *testing.T) {
			x := pointFor(m)
			g := make([]float64, m.Dim())
			for b := 0; b < m.Batches(); b++ {
				m.Gradient(g, x, b, nil)
				for j := range x {
					const h = 1e-6
					xp, xm := slices.Clone(x), slices.Clone(x)
					xp[j] += h
					xm[j] -= h
					fd := (batchLoss(m, xp, b) - batchLoss(m, xm, b)) / (2 * h)
					if math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(fd)) {
						t.Errorf("batch %d coordinate %d: gradient %.10g, finite difference %.10g", b, j, g[j], fd)
					}
				}
			}
		})
	}
}

// The full loss is the mean of the batch losses (equal batches), and the
// tracker that follows block moves agrees with a fresh evaluation.
func TestLossAndTracker(t *testing.T) {
	for name, m := range smallProblems(t) {
		t.Run(name, func(t *testing.T) {
			x := pointFor(m)
			var mean float64
			for b := 0; b < m.Batches(); b++ {
				mean += batchLoss(m, x, b) / float64(m.Batches())
			}
			if got := m.Loss(x); math.Abs(got-mean) > 1e-12*(1+mean) {
				t.Errorf("Loss = %.15g, mean of batch losses %.15g", got, mean)
			}
			tr := m.Track(x)
			bl := m.Blocks()
			for s := 0; s+1 < len(bl); s++ {
				delta := make([]float64, bl[s+1]-bl[s])
				for j := range delta {
					delta[j] = float64(j+s) * 0.05
				}
				tr.Shift(s, delta, -0.5)
				for j, v := range delta {
					x[bl[s]+j] -= 0.5 * v
				}
			}
			if got, want := tr.Loss(x), m.Loss(x); math.Abs(got-want) > 1e-12*(1+want) {
				t.Errorf("tracked loss %.15g, fresh %.15g", got, want)
			}
		})
	}
}

// Noise is σ·N(0, 1) per coordinate drawn in coordinate order from the
// caller's stream: a noisy gradient minus the noiseless one reproduces
// σ times the stream's normals.
func TestGradientNoiseComesFromTheCallersStream(t *testing.T) {
	m := smallProblems(t)["logistic"]
	x := pointFor(m)
	clean, noisy := make([]float64, m.Dim()), make([]float64, m.Dim())
	m.Gradient(clean, x, 1, nil)
	m.Gradient(noisy, x, 1, NewRand(9, StreamNoise))
	ref := NewRand(9, StreamNoise)
	for j := range clean {
		want := 0.5 * ref.NormFloat64()
		if got := noisy[j] - clean[j]; math.Abs(got-want) > 1e-12 {
			t.Errorf("coordinate %d: noise %.15g, want %.15g", j, got, want)
		}
	}
}

// The tridiagonal design satisfies XᵀX/n = tridiag(-1, 2, -1) + μI
// (docs/reference.md §1.7) to rounding, and y = X·w* gives f(w*) = 0.
func TestTridiagonalGram(t *testing.T) {
	const n, d, mu = 40, 9, 0.01
	data, err := TridiagonalQuadratic(n, d, mu, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var g float64
			for r := 0; r < n; r++ {
				g += data.Row(r)[i] * data.Row(r)[j]
			}
			g /= n
			want := 0.0
			switch {
			case i == j:
				want = 2 + mu
			case i-j == 1 || j-i == 1:
				want = -1
			}
			if math.Abs(g-want) > 1e-10 {
				t.Errorf("(XᵀX/n)[%d][%d] = %.12g, want %g", i, j, g, want)
			}
		}
	}
	m, err := NewLeastSquares(data, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Loss(data.Truth); f > 1e-20 {
		t.Errorf("f(w*) = %g, want 0", f)
	}
}

// f* of the logistic objective agrees with an independent minimisation:
// plain gradient descent with step 1/L, L = ‖X‖²/(4n) + λ (the logistic
// smoothness bound), run until it stalls.
func TestLogisticOptimum(t *testing.T) {
	data, err := RandomLogistic(30, 4, 11)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewLogistic(data, 2, 30, 0.05, 0)
	if err != nil {
		t.Fatal(err)
	}
	fstar, err := m.OptimalValue()
	if err != nil {
		t.Fatal(err)
	}
	var frob float64
	for _, v := range data.X {
		frob += v * v
	}
	step := 1 / (frob/(4*30) + 0.05)
	w, g := make([]float64, 4), make([]float64, 4)
	for it := 0; it < 20000; it++ {
		m.Gradient(g, w, 0, nil)
		for j := range w {
			w[j] -= step * g[j]
		}
	}
	if gd := m.Loss(w); math.Abs(gd-fstar) > 1e-12 || fstar > gd+1e-15 {
		t.Errorf("f* = %.15g, gradient descent reaches %.15g", fstar, gd)
	}
}

// The quadratics with planted weights have f* = 0; loaded data get the
// least-squares minimum, checked against the normal equations' residual
// being orthogonal to X (f at the minimiser is ½‖(I - P)y‖²/n).
func TestLeastSquaresOptimum(t *testing.T) {
	data, err := RandomQuadratic(20, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := NewLeastSquares(data, 1, 5)
	if f, err := m.OptimalValue(); err != nil || f != 0 {
		t.Errorf("planted f* = %g, %v; want 0", f, err)
	}
	loaded := &Dataset{Rows: 20, Cols: 3, X: data.X, Y: slices.Clone(data.Y)}
	for i := range loaded.Y {
		loaded.Y[i] += math.Cos(float64(i))
	}
	m, _ = NewLeastSquares(loaded, 1, 5)
	fstar, err := m.OptimalValue()
	if err != nil {
		t.Fatal(err)
	}
	// Gradient descent on the full batch is an independent minimisation.
	w, g := make([]float64, 3), make([]float64, 3)
	full, _ := NewLeastSquares(loaded, 1, 20)
	for it := 0; it < 5000; it++ {
		full.Gradient(g, w, 0, nil)
		for j := range w {
			w[j] -= 0.02 * g[j]
		}
	}
	if gd := m.Loss(w); math.Abs(gd-fstar) > 1e-12 {
		t.Errorf("least-squares f* = %.15g, gradient descent %.15g", fstar, gd)
	}
}

func TestConstructorErrors(t *testing.T) {
	data, _ := RandomQuadratic(10, 4, 1)
	cases := []struct {
		name  string
		build func() error
	}{
		{"batch does not divide rows", func() error { _, err := NewLeastSquares(data, 2, 3); return err }},
		{"more stages than parameters", func() error { _, err := NewLeastSquares(data, 5, 5); return err }},
		{"zero stages", func() error { _, err := NewLeastSquares(data, 0, 5); return err }},
		{"labels not 0/1", func() error { _, err := NewLogistic(data, 2, 5, 0, 0); return err }},
		{"tridiagonal n < d", func() error { _, err := TridiagonalQuadratic(3, 4, 0.01, 1); return err }},
	}
	for _, c := range cases {
		if err := c.build(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// The same seed gives the same data; another seed other data.
func TestGenerationIsSeeded(t *testing.T) {
	a, _ := RandomLogistic(5, 3, 7)
	b, _ := RandomLogistic(5, 3, 7)
	c, _ := RandomLogistic(5, 3, 8)
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
		t.Error("same seed, different data")
	}
	if slices.Equal(a.X, c.X) {
		t.Error("different seeds, same data")
	}
}
