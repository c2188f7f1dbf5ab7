package charlm

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math/rand/v2"
	"testing"
)

// BenchmarkProducts times the remedies shape's products (64 tokens, E 16:
// the QKV, output and MLP projections, the head's 65 columns) and a layer's
// input and weight gradients in each vector mode (vectorModes), so that
// the panels are compared with each other and with the scalar tiles in one
// run.
func BenchmarkProducts(b *testing.B) {
	defer func(a, z bool) { vec.Kernels.AVX, vec.Kernels.AVX512 = a, z }(vec.Kernels.AVX, vec.Kernels.AVX512)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mode := range vectorModes() {
		for _, size := range [][3]int{{64, 16, 48}, {64, 16, 16}, {64, 16, 64}, {64, 64, 16}, {64, 16, 65}} {
			n, k, m := size[0], size[1], size[2]
			in, w, bias := randomVector(rng, n*k, 1), randomVector(rng, k*m, 1), randomVector(rng, m, 1)
			out, dw, din := make([]float64, n*m), make([]float64, k*m), make([]float64, n*k)
			var s linearScratch
			name := fmt.Sprintf("avx=%v/avx512=%v/%dx%dx%d", mode.avx, mode.avx512, n, k, m)
			b.Run(name+"/forward", func(b *testing.B) {
				vec.Kernels.AVX, vec.Kernels.AVX512 = mode.avx, mode.avx512
				for b.Loop() {
					linearForward(out, in, w, bias, n, k, m, &s)
				}
			})
			b.Run(name+"/backward", func(b *testing.B) {
				vec.Kernels.AVX, vec.Kernels.AVX512 = mode.avx, mode.avx512
				for b.Loop() {
					linearBackward(din, dw, bias, out, in, w, n, k, m, &s)
				}
			})
		}
	}
}

// BenchmarkLayerNorm times layerNormForward and layerNormBackward at the
// remedies shape (64 rows of 16) against the row-by-row kernels they
// replaced (layernorm_reference_test.go), in one run, in each vector mode.
func BenchmarkLayerNorm(b *testing.B) {
	defer func(a, z bool) { vec.Kernels.AVX, vec.Kernels.AVX512 = a, z }(vec.Kernels.AVX, vec.Kernels.AVX512)
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 64, 16
	in, gain, bias := randomVector(rng, n*d, 1), randomVector(rng, d, 1), randomVector(rng, d, 1)
	out, xhat, rstd := make([]float64, n*d), make([]float64, n*d), make([]float64, n)
	din, dgain, dbias := make([]float64, n*d), make([]float64, d), make([]float64, d)
	type kernel struct {
		name     string
		mode     vectorMode
		forward  func(out, xhat, rstd, in, gain, bias []float64, n, d int)
		backward func(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int)
	}
	kernels := []kernel{{"rowbyrow", vectorMode{}, layerNormForwardRowByRow, layerNormBackwardRowByRow}}
	for _, mode := range vectorModes() {
		kernels = append(kernels, kernel{fmt.Sprintf("avx=%v/avx512=%v", mode.avx, mode.avx512), mode, layerNormForward, layerNormBackward})
	}
	for _, k := range kernels {
		b.Run(k.name+"/forward", func(b *testing.B) {
			vec.Kernels.AVX, vec.Kernels.AVX512 = k.mode.avx, k.mode.avx512
			for b.Loop() {
				k.forward(out, xhat, rstd, in, gain, bias, n, d)
			}
		})
		b.Run(k.name+"/backward", func(b *testing.B) {
			vec.Kernels.AVX, vec.Kernels.AVX512 = k.mode.avx, k.mode.avx512
			for b.Loop() {
				k.backward(din, dgain, dbias, out, xhat, rstd, gain, n, d)
			}
		})
	}
}

// BenchmarkTranspose times transpose at the remedies shape's weights
// (16×48, 64×16, 16×64) and the default shape's 64×256.
func BenchmarkTranspose(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range [][2]int{{16, 48}, {64, 16}, {16, 64}, {64, 256}} {
		src := randomVector(rng, size[0]*size[1], 1)
		dst := make([]float64, len(src))
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			for b.Loop() {
				transpose(dst, src, size[0], size[1])
			}
		})
	}
}

// BenchmarkSoftmaxCrossEntropy times the head's loss and logit gradient at
// the remedies shape (64 rows of 65) against the builtin max's version it
// replaced (loss_reference_test.go), in one run.
func BenchmarkSoftmaxCrossEntropy(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, vocab := 64, 65
	logits, dlogits := randomVector(rng, n*vocab, 2), make([]float64, n*vocab)
	targets := make([]int32, n)
	for i := range targets {
		targets[i] = int32(rng.IntN(vocab))
	}
	for _, k := range []struct {
		name string
		f    func(dlogits, logits []float64, targets []int32, n, vocab int) float64
	}{{"builtinmax", softmaxCrossEntropyBuiltinMax}, {"rowmax", softmaxCrossEntropy}} {
		b.Run(k.name+"/loss", func(b *testing.B) {
			for b.Loop() {
				k.f(nil, logits, targets, n, vocab)
			}
		})
		b.Run(k.name+"/gradient", func(b *testing.B) {
			for b.Loop() {
				k.f(dlogits, logits, targets, n, vocab)
			}
		})
	}
}
