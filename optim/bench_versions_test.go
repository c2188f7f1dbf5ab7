package optim

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRPDVersionsHeld measures the memory of RPD's version histories
// under the uniform delay model's stage draws (docs/reference.md §1.4): S
// blocks, one drawn uniformly per iteration for K = N·S iterations, each
// iteration reading every block δ or fewer updates back. S16 is the
// remedies figure's character LM (δ = 248, N = 463, blocks of 3,300
// parameters, about its per-stage size); S128 the scaling figure's
// logistic run (δ = 16,320, N = 1463, d = 512 over 128 stages). slots/block
// is the mean ring length at the end and bytes/block what it holds
// (values and stamps).
func BenchmarkRPDVersionsHeld(b *testing.B) {
	cases := []struct {
		name                         string
		stages, delta, micro, params int
	}{
		{"S16", 16, 248, 463, 16 * 3300},
		{"S128", 128, 16320, 1463, 512},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			width := c.params / c.stages
			xs := make([]float64, width)
			var slots float64
			for b.Loop() {
				rng := rand.New(rand.NewPCG(1, 2))
				hist := make([]*versions, c.stages)
				for s := range hist {
					hist[s] = newVersions(c.delta+1, xs)
					hist[s].index(c.delta, c.stages)
				}
				for k := 0; k < c.micro*c.stages; k++ {
					for _, h := range hist {
						if _, ok := h.at(k - rng.IntN(min(c.delta, k)+1)); !ok {
							b.Fatalf("iteration %d: a read within δ refused", k)
						}
					}
					hist[rng.IntN(c.stages)].push(k+1, xs)
				}
				slots = 0
				for _, h := range hist {
					slots += float64(len(h.stamps))
				}
			}
			slots /= float64(c.stages)
			b.ReportMetric(slots, "slots/block")
			b.ReportMetric(slots*float64(8*width+8), "bytes/block")
		})
	}
}
