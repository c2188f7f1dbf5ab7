package charlm

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"github.com/pipelab/pipelab/internal/vec"
	"math"
	"testing"
)

// modelDigest is the SHA-256 of the gradient at x for batches 0 and 1,
// the loss and the validation loss at x, each float64's bits in order.
func modelDigest(m *Model, x []float64) (sum [32]byte) {
	h := sha256.New()
	put := func(v float64) { _ = binary.Write(h, binary.LittleEndian, math.Float64bits(v)) }
	g := make([]float64, m.Dim())
	for b := range 2 {
		m.Gradient(g, x, b, nil)
		for _, v := range g {
			put(v)
		}
	}
	put(m.Loss(x))
	put(m.ValidationLoss(x))
	copy(sum[:], h.Sum(nil))
	return sum
}

// TestModelIsMathErfGELU checks that the model computes with the GELU
// Φ(x) = (1 + math.Erf(x/√2))/2 bit for bit: the gradient (two batches),
// the loss and the validation loss, at the initial point and at 4 times
// it (where, counted once in a gradient's forward pass, 15 % of the
// GELU's arguments at S = 4 and 16 and 50 % at the default shape lie
// beyond 1.25·√2, in math.Erf's exponential ranges; none at the initial
// point), are identical with erfInto's vector kernel and
// without it (erfScalar, math.Erf itself in a loop), at the remedies
// figure's shape for S = 4 and 16 and at the default configuration.
func TestModelIsMathErfGELU(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, nothing to race; ten times slower under -race")
	}
	if !vec.Kernels.AVX2FMA {
		t.Skip("no vector kernel on this processor: erfInto is math.Erf in a loop")
	}
	defer func(v bool) { vec.Kernels.AVX2FMA = v }(vec.Kernels.AVX2FMA)
	text := TinyShakespeare()
	for _, cfg := range []Config{
		{Stages: 4, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1},
		{Stages: 16, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1},
		DefaultConfig(),
	} {
		// Eight held-out windows, not all: the digest compares bits, and
		// every window costs a forward pass.
		cfg.ValidationBatches = 8
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		x0 := m.Init()
		x4 := make([]float64, len(x0))
		for i, v := range x0 {
			x4[i] = 4 * v
		}
		for _, p := range []struct {
			name string
			x    []float64
		}{{"initial point", x0}, {"4 × initial point", x4}} {
			vec.Kernels.AVX2FMA = true
			got := modelDigest(m, p.x)
			vec.Kernels.AVX2FMA = false
			want := modelDigest(m, p.x)
			name := fmt.Sprintf("S=%d E=%d T=%d batch %d, %s", cfg.Stages, cfg.Embed, cfg.SeqLen, cfg.Batch, p.name)
			t.Logf("%s: %x", name, got[:8])
			if got != want {
				t.Errorf("%s: SHA-256 %x with the vector erf, %x with math.Erf", name, got, want)
			}
		}
	}
}
