package charlm

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkGradient times one Gradient call at the default configuration
// (embed 64, 4 heads, sequence 32, batch 16) for S = 4 and S = 8.
func BenchmarkGradient(b *testing.B) {
	text, _ := MarkovCorpus(1, 1<<16)
	for _, stages := range []int{4, 8} {
		b.Run(fmt.Sprintf("S=%d", stages), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Stages = stages
			m, err := New(cfg, text)
			if err != nil {
				b.Fatal(err)
			}
			x := m.Init()
			g := make([]float64, m.Dim())
			b.ReportAllocs()
			cpu := startCPU()
			for i := 0; b.Loop(); i++ {
				m.Gradient(g, x, i, nil)
			}
			cpu.report(b)
		})
	}
}

// BenchmarkLoss times one Loss call (DefaultEvalBatches forward passes)
// at the default configuration.
func BenchmarkLoss(b *testing.B) {
	text, _ := MarkovCorpus(1, 1<<16)
	m, err := New(DefaultConfig(), text)
	if err != nil {
		b.Fatal(err)
	}
	x := m.Init()
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		m.Loss(x)
	}
	cpu.report(b)
}

// cpuClock measures the process CPU time spent in a benchmark loop: the
// machine is shared, and CPU time per call varies far less with the load
// than wall-clock time does. The loop allocates nothing, so no garbage
// collector runs inside it.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	t, ok := processCPU()
	return cpuClock{start: t, ok: ok}
}

func (c cpuClock) report(b *testing.B) {
	end, ok := processCPU()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(end-c.start)/float64(b.N), "cpu-ns/op")
	}
}
