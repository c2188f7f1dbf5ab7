package charlm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearMatchesNaive compares the tiled kernels with the textbook
// triple loops out[i,j] = Σ_p in[i,p]·w[p,j] + bias[j],
// dw[p,j] = Σ_i in[i,p]·dout[i,j], din[i,p] = Σ_j dout[i,j]·w[p,j], on
// sizes that exercise the full tiles and every remainder.
func TestLinearMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, size := range [][3]int{{1, 1, 1}, {2, 3, 4}, {5, 7, 9}, {17, 33, 18}, {32, 16, 48}} {
		n, k, m := size[0], size[1], size[2]
		in, w, bias := randomVector(rng, n*k, 1), randomVector(rng, k*m, 1), randomVector(rng, m, 1)
		dout := randomVector(rng, n*m, 1)
		var s linearScratch
		out := make([]float64, n*m)
		linearForward(out, in, w, bias, n, k, m, &s)
		din, dw, dbias := make([]float64, n*k), make([]float64, k*m), make([]float64, m)
		linearBackward(din, dw, dbias, dout, in, w, n, k, m, &s)
		for i := range n {
			for j := range m {
				want := bias[j]
				for p := range k {
					want += in[i*k+p] * w[p*m+j]
				}
				if math.Abs(out[i*m+j]-want) > 1e-12 {
					t.Fatalf("%v: out[%d,%d] = %g, want %g", size, i, j, out[i*m+j], want)
				}
			}
		}
		for p := range k {
			for j := range m {
				var want float64
				for i := range n {
					want += in[i*k+p] * dout[i*m+j]
				}
				if math.Abs(dw[p*m+j]-want) > 1e-12 {
					t.Fatalf("%v: dw[%d,%d] = %g, want %g", size, p, j, dw[p*m+j], want)
				}
			}
		}
		for j := range m {
			var want float64
			for i := range n {
				want += dout[i*m+j]
			}
			if math.Abs(dbias[j]-want) > 1e-12 {
				t.Fatalf("%v: dbias[%d] = %g, want %g", size, j, dbias[j], want)
			}
		}
		for i := range n {
			for p := range k {
				var want float64
				for j := range m {
					want += dout[i*m+j] * w[p*m+j]
				}
				if math.Abs(din[i*k+p]-want) > 1e-12 {
					t.Fatalf("%v: din[%d,%d] = %g, want %g", size, i, p, din[i*k+p], want)
				}
			}
		}
	}
}
