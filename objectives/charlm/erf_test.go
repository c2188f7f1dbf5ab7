package charlm

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"math/rand/v2"
	"testing"
)

// erfBoundaries are the ends of math.Erf's ranges (math/erf.go): VeryTiny
// (2⁻¹⁰¹⁵), Small (2⁻²⁸), 0.84375, 1.25, 1/0.35 and 6.
var erfBoundaries = []float64{2.848094538889218e-306, 1.0 / (1 << 28), 0.84375, 1.25, 1 / 0.35, 6}

// erfCases returns the arguments TestErfIntoIsMathErf checks: a grid of
// 2·10⁶ + 1 points on [-7, 7]; 2¹⁶ values normal with sd 0.06 (the
// GELU's at the initial point), 1 and 3 each; every range boundary and
// the 8 floats on either side of it, both signs; ±0, subnormals, ±Inf,
// NaN and huge values; and, shuffled together, groups of four mixing all
// of them.
func erfCases() []float64 {
	const n = 1_000_000
	var xs []float64
	for k := -n; k <= n; k++ {
		xs = append(xs, 7*float64(k)/n)
	}
	rng := rand.New(rand.NewPCG(22, 23))
	for _, sd := range []float64{0.06, 1, 3} {
		for range 1 << 16 {
			xs = append(xs, sd*rng.NormFloat64())
		}
	}
	var edges []float64
	for _, b := range erfBoundaries {
		for _, x := range []float64{b, b * math.Sqrt2} { // the GELU divides by √2
			lo, hi := x, x
			edges = append(edges, x, -x)
			for range 8 {
				lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
				edges = append(edges, lo, -lo, hi, -hi)
			}
		}
	}
	edges = append(edges, 0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-310, -2.5e-320, 0x1p-1022, -0x1p-1022,
		1e-300, 1e-20, 3e-9, 27.9, 1e300, -1e308, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN())
	xs = append(xs, edges...)
	mixed := append([]float64(nil), edges...)
	for range 16 {
		mixed = append(mixed, edges...)
	}
	rng.Shuffle(len(mixed), func(i, j int) { mixed[i], mixed[j] = mixed[j], mixed[i] })
	return append(xs, mixed...)
}

// TestErfIntoIsMathErf checks erfInto against math.Erf bit for bit, with
// the vector kernel (where the processor has it) and without, for erf
// itself and for the GELU's Φ(x) = (1 + math.Erf(x/√2))/2, with the
// product x·erf (x·Φ(x)) and without (then in place), on erfCases and on
// lengths around the groups of four.
func TestErfIntoIsMathErf(t *testing.T) {
	defer func(v bool) { vec.Kernels.AVX2FMA = v }(vec.Kernels.AVX2FMA)
	t.Logf("vector kernel: %v", vec.Kernels.AVX2FMA)
	xs := erfCases()
	for _, vector := range []bool{vec.Kernels.AVX2FMA, false} {
		vec.Kernels.AVX2FMA = vector
		for _, mode := range []struct {
			div float64
			cdf bool
		}{{1, false}, {math.Sqrt2, true}} {
			want := func(x float64) float64 {
				e := referenceErf(x / mode.div)
				if mode.cdf {
					e = 0.5 * (1 + e)
				}
				return e
			}
			for _, n := range []int{0, 1, 3, 4, 5, 7, 9, len(xs)} {
				src := xs[len(xs)-n:]
				got, prod, alone := make([]float64, n), make([]float64, n), make([]float64, n)
				erfInto(got, prod, src, mode.div, mode.cdf)
				copy(alone, src)
				erfInto(alone, nil, alone, mode.div, mode.cdf) // in place
				same := func(a, b float64) bool {
					return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
				}
				for i, x := range src {
					w := want(x)
					if !same(got[i], w) || !same(alone[i], w) || !same(prod[i], x*w) {
						t.Fatalf("vector=%v div=%g cdf=%v n=%d: erfInto(%.17g) = %.17g (%#x; %.17g in place without the product), want %.17g (%#x); product %.17g, want %.17g",
							vector, mode.div, mode.cdf, n, x, got[i], math.Float64bits(got[i]), alone[i], w, math.Float64bits(w), prod[i], x*w)
					}
				}
			}
		}
	}
	t.Logf("%d values", len(xs))
}

// referenceErf is math.Erf, or erf where math.Erf is compiled with fused
// multiply-adds (GOAMD64=v3; see mathErfFused).
func referenceErf(x float64) float64 {
	if mathErfFused {
		return erf(x)
	}
	return math.Erf(x)
}

// TestErfIsMathErf checks erf, the scalar code, against Go's math.Erf bit
// for bit on erfCases, in the builds that compile math.Erf without fused
// multiply-adds; under GOAMD64=v3 math.Erf's bits differ from every other
// build's, and the digest test checks erf there against the other builds.
func TestErfIsMathErf(t *testing.T) {
	if mathErfFused {
		t.Skip("GOAMD64=v3 compiles math.Erf with fused multiply-adds; TestDigestSameInEveryBuild covers erf in this build")
	}
	for _, x := range erfCases() {
		got, want := erf(x), math.Erf(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("erf(%.17g) = %.17g (%#x), math.Erf %.17g (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// BenchmarkErf times erfInto on 4096 values (a GELU layer of the remedies
// shape), as erf and as the GELU's Φ (Phi: x/√2, (1 + erf)/2), against
// math.Erf in a loop, for arguments normal with sd 0.06 (as at the initial
// point: math.Erf's first range), 1 and 3 (where a fifth and most values
// are beyond 1.25 and math.Erf calls math.Exp twice).
func BenchmarkErf(b *testing.B) {
	for _, sd := range []float64{0.06, 1, 3} {
		rng := rand.New(rand.NewPCG(1, 2))
		xs, out := make([]float64, 4096), make([]float64, 4096)
		for i := range xs {
			xs[i] = sd * rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("sd=%g/erfInto", sd), func(b *testing.B) {
			cpu := startCPU()
			for b.Loop() {
				erfInto(out, nil, xs, 1, false)
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("sd=%g/Phi", sd), func(b *testing.B) {
			cpu := startCPU()
			for b.Loop() {
				erfInto(out, nil, xs, math.Sqrt2, true)
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("sd=%g/math.Erf", sd), func(b *testing.B) {
			cpu := startCPU()
			for b.Loop() {
				for i, x := range xs {
					out[i] = math.Erf(x)
				}
			}
			cpu.report(b)
		})
	}
}
