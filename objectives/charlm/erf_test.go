package charlm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// erf is erfInto's erf of one value.
func erf(x float64) float64 {
	v := [1]float64{x}
	erfInto(v[:], v[:], 1, false)
	return v[0]
}

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

// BenchmarkErf times erfInto on 4096 values (a GELU layer of the remedies
// shape) against math.Erf in a loop, for arguments spread as at the
// initial point (sd 0.06: math.Erf's cheap branch) and wider (sd 1.5,
// where math.Erf calls math.Exp twice from |x| = 1.25 on).
func BenchmarkErf(b *testing.B) {
	for _, sd := range []float64{0.06, 1.5} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs, out := make([]float64, 4096), make([]float64, 4096)
		for i := range xs {
			xs[i] = sd * rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("sd=%g/table", sd), func(b *testing.B) {
			for b.Loop() {
				erfInto(out, xs, 1, false)
			}
		})
		b.Run(fmt.Sprintf("sd=%g/math.Erf", sd), func(b *testing.B) {
			for b.Loop() {
				for i, x := range xs {
					out[i] = math.Erf(x)
				}
			}
		})
	}
}

// TestErfIntoVectorIsScalar checks that erfInto's vector groups (where
// the processor has AVX2) give erfScalar's values bit for bit, for erf and
// for Φ, on lengths around the groups of four and values spread past
// erfMax, with infinities and NaN among them.
func TestErfIntoVectorIsScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 17, 4096} {
		src := make([]float64, n)
		for i := range src {
			src[i] = 3 * rng.NormFloat64()
			if i%5 == 2 {
				src[i] *= 1e-3
			}
		}
		if n >= 17 {
			src[3], src[6], src[12], src[16] = math.Inf(1), math.NaN(), math.Copysign(0, -1), 8.5
		}
		for _, scale := range []float64{1, 1 / math.Sqrt2} {
			for _, cdf := range []bool{false, true} {
				got, want := make([]float64, n), make([]float64, n)
				erfInto(got, src, scale, cdf)
				erfScalar(want, src, scale, cdf)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("n=%d scale=%g cdf=%v: erfInto(%.17g) = %.17g, erfScalar %.17g", n, scale, cdf, src[i], got[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("vector groups: %v", vectorErf)
}
