// Command digest prints the SHA-256 of the bits that pipelab's amd64
// kernels produce: charlm's losses and gradients over a few plain SGD
// steps on the shipped text, and internal/vec's kernels on seeded inputs.
// TestDigestSameInEveryBuild (kernel_digest_test.go) builds it as the
// default build, with -tags purego and with GOAMD64=v3 and compares the
// three digests; the kernels' contract says they are equal.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"os"

	"github.com/pipelab/pipelab/internal/vec"
	"github.com/pipelab/pipelab/objectives/charlm"
)

func main() {
	h := sha256.New()
	if err := charlmSteps(h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	vecKernels(h)
	k := vec.Kernels
	fmt.Printf("%x avx=%v avx2fma=%v avx512=%v\n", h.Sum(nil), k.AVX, k.AVX2FMA, k.AVX512)
}

// write adds the bits of xs to h.
func write(h hash.Hash, xs ...float64) {
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
}

// charlmSteps takes three SGD steps on a model whose shapes reach every
// charlm kernel: heads of 4 channels (attention), rows of 16 (layer norm,
// sixteen-column panels), widths that are multiples of 8 and not of 16
// (the eight-column panels, here the 65-character head), the GELU (erf)
// and the softmax (exp).
func charlmSteps(h hash.Hash) error {
	cfg := charlm.Config{Stages: 3, BlocksPerStage: 1, Embed: 16, Heads: 4, SeqLen: 16, Batch: 8, Seed: 1}
	m, err := charlm.New(cfg, charlm.TinyShakespeare())
	if err != nil {
		return err
	}
	x := m.Init()
	g := make([]float64, m.Dim())
	const step = 0.05
	for b := range 3 {
		write(h, m.BatchLoss(x, b))
		m.Gradient(g, x, b, nil)
		write(h, g...)
		for i := range x {
			x[i] -= float64(step * g[i]) // rounded, never fused (as the kernels' contract asks)
		}
	}
	write(h, m.BatchLoss(x, 3))
	return nil
}

// vecKernels runs internal/vec's kernels on seeded inputs, at widths the
// vector code takes (multiples of 4) and widths it leaves to Go.
func vecKernels(h hash.Hash) {
	r := rand.New(rand.NewPCG(7, 11))
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	for _, w := range []int{4, 8, 12, 16, 5, 64} {
		rows := 9
		a, x := fill(rows*w), fill(w)
		write(h, vec.Dot(a[:w], x))
		out := fill(rows)
		vec.AddDots(out, a, x)
		write(h, out...)
		dots := make([]float64, rows-1)
		vec.StridedDots(dots, x, a[1:], w)
		write(h, dots...)
		g, coef := fill(w), fill(rows)
		vec.AddScaledRows(g, a, coef)
		write(h, g...)
	}
	widths := []int{4, 8, 16, 4}
	blocks, xs := make([][]float64, len(widths)), make([][]float64, len(widths))
	for j, w := range widths {
		blocks[j], xs[j] = fill(20*w), fill(w)
	}
	out := fill(10)
	vec.AddBlockDots(out, blocks, 5, xs)
	write(h, out...)
}
