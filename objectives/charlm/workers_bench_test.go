package charlm

import (
	"fmt"
	"testing"
)

// BenchmarkWorkers times Gradient and ValidationLoss (every held-out
// window: 217 of them) at pipelab train's LM (E 64, 4 heads, T 32, batch
// 16, S = 4, on the shipped text) with Workers = 1 and 2: the ratio of
// the two in the same run is what Config.Workers buys on two cores.
// Gradient spreads the rows of its products (gemmNN), ValidationLoss its
// windows.
func BenchmarkWorkers(b *testing.B) {
	text := TinyShakespeare()
	for _, workers := range []int{1, 2} {
		cfg := DefaultConfig()
		cfg.Workers = workers
		m, err := New(cfg, text)
		if err != nil {
			b.Fatal(err)
		}
		x := m.Init()
		g := make([]float64, m.Dim())
		b.Run(fmt.Sprintf("Gradient/workers=%d", workers), func(b *testing.B) {
			cpu := startCPU()
			for i := 0; b.Loop(); i++ {
				m.Gradient(g, x, i, nil)
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("ValidationLoss/workers=%d", workers), func(b *testing.B) {
			cpu := startCPU()
			for b.Loop() {
				m.ValidationLoss(x)
			}
			cpu.report(b)
		})
	}
}
