package charlm

import (
	"math"
	"testing"
)

// ulps is the distance between a and b in units in the last place of b.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// TestErfMatchesMathErf compares erf with math.Erf (fdlibm's, itself
// within an ulp of the true value) on a dense grid of 2·10⁶ + 1 points
// over [-7, 7], beyond the table's ±6, and on tiny and special
// arguments: at most 1 ulp apart everywhere.
func TestErfMatchesMathErf(t *testing.T) {
	const n = 1_000_000
	var worst, at float64
	var differ int
	check := func(x float64) {
		got, want := erf(x), math.Erf(x)
		if d := ulps(got, want); d > worst {
			worst, at = d, x
		}
		if got != want {
			differ++
		}
	}
	for k := -n; k <= n; k++ {
		check(7 * float64(k) / n)
	}
	for _, x := range []float64{1e-300, -1e-300, 1e-20, 3e-9, 0.03125, 5.96875, 6, math.Nextafter(6, 0), 40, math.Inf(1), math.Inf(-1)} {
		check(x)
	}
	t.Logf("largest difference %.3g ulp at %.17g; %d of %d values differ from math.Erf", worst, at, differ, 2*n+12)
	if worst > 1 {
		t.Errorf("erf(%.17g) = %.17g, math.Erf %.17g: %.3g ulp apart", at, erf(at), math.Erf(at), worst)
	}
	if !math.IsNaN(erf(math.NaN())) || math.Signbit(erf(0)) || !math.Signbit(erf(math.Copysign(0, -1))) {
		t.Errorf("erf(NaN) = %g, erf(0) = %g, erf(-0) = %g", erf(math.NaN()), erf(0), erf(math.Copysign(0, -1)))
	}
}

func BenchmarkErf(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = 3 * math.Sin(float64(i))
	}
	for _, f := range []struct {
		name string
		erf  func(float64) float64
	}{{"table", erf}, {"math.Erf", math.Erf}} {
		b.Run(f.name, func(b *testing.B) {
			var s float64
			for b.Loop() {
				for _, x := range xs {
					s += f.erf(x)
				}
			}
			_ = s
		})
	}
}
