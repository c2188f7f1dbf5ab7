package charlm

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
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

// TestTiledKernelsMatchAxpyKernels checks that the register-tiled gemmNN
// and gemmTN form every sum exactly as the axpy kernels they replaced
// (linalg_reference_test.go) did, bit for bit, on the shapes of the
// remedies figure's LM (64 tokens, E = 16, the head's 65 columns) and the
// default one (512 tokens, E = 64), and on odd sizes that take every
// remainder, with each of the vector paths the processor has (vectorModes)
// and without. gemmNN's bias must equal adding the bias rows after the
// product, as linearForward did before the panels' stores took it.
func TestTiledKernelsMatchAxpyKernels(t *testing.T) {
	forVectorModes(t, testTiledKernels)
}

// vectorMode is one setting of the panels' switches.
type vectorMode struct{ avx, avx512 bool }

// vectorModes are the vector paths this processor can take: the sixteen-
// and eight-column panels (AVX-512 and AVX), the eight-column panels
// alone, and the scalar tiles.
func vectorModes() []vectorMode {
	modes := []vectorMode{{false, false}}
	if vec.Kernels.AVX {
		modes = append(modes, vectorMode{true, false})
	}
	if vec.Kernels.AVX512 {
		modes = append(modes, vectorMode{true, true})
	}
	return modes
}

// forVectorModes runs test once in each vector mode, restoring the
// switches after.
func forVectorModes(t *testing.T, test func(*testing.T)) {
	defer func(a, z bool) { vec.Kernels.AVX, vec.Kernels.AVX512 = a, z }(vec.Kernels.AVX, vec.Kernels.AVX512)
	for _, mode := range vectorModes() {
		vec.Kernels.AVX, vec.Kernels.AVX512 = mode.avx, mode.avx512
		t.Run(fmt.Sprintf("avx=%v/avx512=%v", mode.avx, mode.avx512), test)
	}
}

func testTiledKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	sizes := [][3]int{
		{64, 16, 48}, {64, 16, 64}, {64, 64, 16}, {64, 16, 65}, {64, 16, 16},
		{512, 64, 192}, {512, 256, 64}, {512, 64, 65},
		{1, 1, 1}, {3, 5, 7}, {17, 33, 18}, {5, 2, 4}, {2, 3, 9}, {6, 5, 12}, {7, 6, 17},
		{64, 16, 24}, {12, 7, 40}, {9, 3, 33}, {8, 64, 8},
	}
	for _, size := range sizes {
		n, k, m := size[0], size[1], size[2]
		a, b := randomVector(rng, n*k, 1), randomVector(rng, k*m, 1)
		// A few exact zeros and negative zeros, whose sums' signs the
		// kernels must also agree on.
		a[0], b[len(b)-1] = math.Copysign(0, -1), 0
		var s linearScratch
		var ref axpyScratch
		got, want := make([]float64, n*m), make([]float64, n*m)
		gemmNN(got, a, b, nil, n, k, m, &s)
		gemmNNAxpy(want, a, b, n, k, m, &ref)
		sameBits(t, "gemmNN", size, got, want)

		bias := randomVector(rng, m, 1)
		bias[0] = 0
		gemmNN(got, a, b, bias, n, k, m, &s)
		for i := range n {
			add(want[i*m:i*m+m], bias)
		}
		sameBits(t, "gemmNN with bias", size, got, want)

		dout := randomVector(rng, n*m, 1)
		start := randomVector(rng, k*m, 1)
		got, want = append([]float64(nil), start...), append([]float64(nil), start...)
		gemmTN(got, a, dout, n, k, m, &s)
		gemmTNAxpy(want, a, dout, n, k, m, &ref)
		sameBits(t, "gemmTN", size, got, want)
	}
}

func sameBits(t *testing.T, name string, size [3]int, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s %v: element %d = %v (%#x), the reference kernel's %v (%#x)",
				name, size, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// TestInputGradientMatchesGemmNT checks that linearBackward's input
// gradient, gemmNN of dout and the transposed weights, equals what gemmNT
// (linalg_reference_test.go), the dot-product kernel it replaced, forms
// bit for bit, in each vector mode.
func TestInputGradientMatchesGemmNT(t *testing.T) {
	forVectorModes(t, testInputGradient)
}

func testInputGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	for _, size := range [][3]int{{64, 16, 48}, {64, 64, 16}, {64, 16, 65}, {512, 64, 256}, {1, 1, 1}, {7, 6, 17}, {17, 33, 18}} {
		n, k, m := size[0], size[1], size[2]
		in, w, dout := randomVector(rng, n*k, 1), randomVector(rng, k*m, 1), randomVector(rng, n*m, 1)
		var s linearScratch
		got, want := make([]float64, n*k), make([]float64, n*k)
		linearBackward(got, make([]float64, k*m), nil, dout, in, w, n, k, m, &s)
		gemmNT(want, dout, w, n, k, m, false)
		sameBits(t, "din", size, got, want)
	}
}

// TestTransposeMatchesNaive checks transpose against dst[j,i] = src[i,j]
// on shapes with every remainder of four rows.
func TestTransposeMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 23))
	for _, size := range [][2]int{{16, 48}, {64, 256}, {7, 5}, {5, 9}, {1, 3}, {3, 1}, {6, 6}} {
		rows, cols := size[0], size[1]
		src := randomVector(rng, rows*cols, 1)
		got, want := make([]float64, rows*cols), make([]float64, rows*cols)
		transpose(got, src, rows, cols)
		for i := range rows {
			for j := range cols {
				want[j*rows+i] = src[i*cols+j]
			}
		}
		sameBits(t, "transpose", [3]int{rows, cols, 0}, got, want)
	}
}

// TestAddRowsSameBits checks addRows, with its vector kernel (addColumns)
// on where the processor has AVX and off, against adding the rows to dst
// one at a time, element by element in order of the row (the bias
// gradients' definition), bit for bit, on widths with every remainder of
// sixteen and four columns, a dst that starts nonzero, and a few negative
// zeros, an infinity and a NaN.
func TestAddRowsSameBits(t *testing.T) {
	defer func(d bool) { vec.Kernels.Disabled.AddRows = d }(vec.Kernels.Disabled.AddRows)
	rng := rand.New(rand.NewPCG(24, 25))
	for _, off := range []bool{false, true} {
		vec.Kernels.Disabled.AddRows = off
		for _, size := range [][2]int{{256, 96}, {256, 32}, {256, 128}, {256, 65}, {0, 8}, {1, 1}, {3, 4}, {5, 19}, {7, 36}, {2, 3}} {
			n, m := size[0], size[1]
			src, start := randomVector(rng, n*m, 1), randomVector(rng, m, 1)
			if n*m > 3 {
				src[0], src[1], src[2] = math.Copysign(0, -1), math.Inf(1), math.NaN()
				start[0] = math.Copysign(0, -1)
			}
			got, want := append([]float64(nil), start...), append([]float64(nil), start...)
			addRows(got, src, n, m)
			for i := range n {
				for j := range m {
					want[j] += src[i*m+j]
				}
			}
			sameBits(t, fmt.Sprintf("addRows (vector kernel off: %v)", off), [3]int{n, m, 0}, got, want)
		}
	}
}
