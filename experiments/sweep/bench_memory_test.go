package sweep

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipelab/pipelab/experiments"
)

// BenchmarkScalingUnitSweep sweeps the full scaling figure's PipeDream
// and LocalSGD runs in unit time (441 runs on 14 timelines, S = 128's
// about 45 MB each with their tables) as reproduce does, in a pool of 2
// slots, records, gathering and tables included, and reports the peak
// heap in use, sampled every 20 ms (garbage not yet collected included).
// A sweep holds the timelines its unfinished runs still need; holding all
// of a figure's until its records were gathered made the full
// reproduce's memory peak.
func BenchmarkScalingUnitSweep(b *testing.B) {
	f, err := experiments.LookupFigure("scaling")
	if err != nil {
		b.Fatal(err)
	}
	all, err := f.Runs(false)
	if err != nil {
		b.Fatal(err)
	}
	var runs []experiments.Run
	for _, r := range all {
		if r.Method != "rpd" && r.Cost.CostModel != "gpu" {
			runs = append(runs, r)
		}
	}
	tmp := b.TempDir()
	peak := samplePeak(func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	})
	i := 0
	for b.Loop() {
		rn := Runner{Dir: filepath.Join(tmp, strconv.Itoa(i)), Pool: NewPool(2)}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(len(runs)), "runs/op")
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
}

// samplePeak reads a memory measure every 20 ms until the returned
// function is called, which stops the sampling and returns the largest
// value read.
func samplePeak(read func() uint64) func() uint64 {
	var peak atomic.Uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), read()))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-sampled
		return peak.Load()
	}
}
