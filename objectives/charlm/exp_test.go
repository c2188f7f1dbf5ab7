package charlm

import (
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpIntoIsMathExp checks expInto against math.Exp bit for bit, with
// the vector kernel (where the processor has it) and without, on lengths
// around the groups of four, values spread over the softmaxes' and the GELU
// derivative's arguments and beyond (2¹⁶ of them normal with sd 60), and groups holding a value outside
// (-700, 700), an infinity or NaN, which take math.Exp itself.
func TestExpIntoIsMathExp(t *testing.T) {
	defer func(v bool) { vec.Kernels.AVX2FMA = v }(vec.Kernels.AVX2FMA)
	rng := rand.New(rand.NewPCG(18, 19))
	for _, vector := range []bool{vec.Kernels.AVX2FMA, false} {
		vec.Kernels.AVX2FMA = vector
		for _, n := range []int{0, 1, 3, 4, 5, 16, 17, 4096, 1 << 16} {
			src := make([]float64, n)
			for i := range src {
				src[i] = -30 * rng.Float64()
				if i%7 == 3 {
					src[i] = 1400*rng.Float64() - 700
				}
				if n == 1<<16 {
					src[i] = 60 * rng.NormFloat64()
				}
			}
			if n >= 16 {
				src[5], src[9], src[13], src[14] = 700, math.Inf(-1), math.NaN(), -745.5
			}
			dst := make([]float64, n)
			expInto(dst, src)
			for i, x := range src {
				if want := math.Exp(x); math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
					t.Fatalf("vector=%v n=%d: expInto(%.17g) = %.17g, math.Exp %.17g", vector, n, x, dst[i], want)
				}
			}
		}
	}
}
