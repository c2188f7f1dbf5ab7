package objectives

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The noisy least-squares gradient is the noiseless one plus σ times the
// stream's standard normals in coordinate order (drawn here independently
// from a stream of the same seed), and its loss is unchanged.
func TestNoisyLeastSquaresAddsNoise(t *testing.T) {
	data, err := RandomQuadratic(20, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	clean, err := NewLeastSquares(data, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := NewNoisyLeastSquares(data, 2, 5, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6}
	g0, g1 := make([]float64, 6), make([]float64, 6)
	clean.Gradient(g0, x, 1, nil)
	noisy.Gradient(g1, x, 1, rand.New(rand.NewPCG(9, 9)))
	draws := rand.New(rand.NewPCG(9, 9))
	for j := range g0 {
		if want := g0[j] + 0.7*draws.NormFloat64(); math.Abs(g1[j]-want) > 1e-12 {
			t.Errorf("coordinate %d: %g, want %g", j, g1[j], want)
		}
	}
	if clean.Loss(x) != noisy.Loss(x) {
		t.Errorf("loss %g, want the noiseless %g", noisy.Loss(x), clean.Loss(x))
	}
	if _, err := NewNoisyLeastSquares(data, 2, 5, -1); err == nil {
		t.Error("σ = -1 accepted")
	}
}
