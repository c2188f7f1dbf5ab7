package vec

import (
	"testing"
	"time"

	"github.com/pipelab/pipelab/internal/cputime"
)

// BenchmarkPeak reports each peak loop's rate in GFLOP/s of process CPU
// time (a fused multiply-add counting two operations): the ceiling of
// this core for float64 vector work.
func BenchmarkPeak(b *testing.B) {
	for _, loop := range []PeakLoop{FMA256, FMA512, MulAdd512} {
		b.Run(loop.String(), func(b *testing.B) {
			if Peak(loop, 1) == 0 {
				b.Skip("the processor or the build lacks the loop's instructions")
			}
			const rounds = 1 << 20
			var flops float64
			start, ok := cputime.Process()
			wall := time.Now()
			for b.Loop() {
				flops += Peak(loop, rounds)
			}
			end, ok2 := cputime.Process()
			if ok && ok2 && end > start {
				b.ReportMetric(flops/float64(end-start), "GFLOP/s")
			}
			b.ReportMetric(flops/float64(time.Since(wall).Nanoseconds()), "wall-GFLOP/s")
		})
	}
}

// TestPeakCounts checks each loop's operation count: rounds times twelve
// registers times their lanes times two, or 0 where the loop cannot run.
func TestPeakCounts(t *testing.T) {
	for _, c := range []struct {
		loop  PeakLoop
		lanes float64
		on    bool
	}{{FMA256, 4, Kernels.AVX2FMA}, {FMA512, 8, Kernels.AVX512}, {MulAdd512, 8, Kernels.AVX512}} {
		want := 0.0
		if c.on {
			want = 3 * 12 * c.lanes * 2
		}
		if got := Peak(c.loop, 3); got != want {
			t.Errorf("%v: Peak(3) = %v operations, want %v", c.loop, got, want)
		}
	}
}
