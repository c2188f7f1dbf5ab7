//go:build unix

package experiments

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/internal/cputime"
)

// BenchmarkRemediesLM runs one LM run of the full remedies figure per
// method and stage count (S = 4, 8) on its ZB-H1 table (Adam, the grid's
// smallest step): the runs that cost the figure its wall time.
// cpu-ns/op is the process's CPU time per run (getrusage), steadier than
// the wall clock on a shared machine. The first run of each S builds the
// timelines the others reuse from the cache, as a sweep does.
func BenchmarkRemediesLM(b *testing.B) {
	spec, picked := remedyLMRuns(b, "remedies-lm-zb-h1")
	for _, stages := range spec.Stages {
		for _, m := range []string{"pipedream", "2bw", "predict", "sync"} {
			r, ok := picked[remedyKey{stages, m}]
			if !ok {
				b.Fatalf("no %s run at S = %d", m, stages)
			}
			b.Run(fmt.Sprintf("S%d/%s", stages, strings.ReplaceAll(m, "-", "")), func(b *testing.B) {
				start, _ := cputime.Process()
				for b.Loop() {
					if _, err := Execute(context.Background(), r); err != nil {
						b.Fatal(err)
					}
				}
				end, _ := cputime.Process()
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkRemediesLMHeap runs the remedies figure's LM run with the most
// microbatches in flight, PipeDream on the ZB-H1 table at S = 8 (Adam,
// the grid's smallest step), and reports the largest live
// heap after a collection (runtime/metrics /gc/heap/live:bytes, sampled
// every 20 ms): what two of them side by side, as a pool of two runs them,
// make the figure's memory peak.
func BenchmarkRemediesLMHeap(b *testing.B) {
	_, picked := remedyLMRuns(b, "remedies-lm-zb-h1")
	r, ok := picked[remedyKey{8, "pipedream"}]
	if !ok {
		b.Fatal("no pipedream run at S = 8")
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	peak := samplePeak(func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	})
	for b.Loop() {
		if _, err := Execute(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak())/1e6, "peak-live-MB")
}

type remedyKey struct {
	stages int
	method string
}

// remedyLMRuns returns the full remedies spec named name and, per stage
// count and method, its first run at the grid's smallest step.
func remedyLMRuns(b *testing.B, name string) (*Spec, map[remedyKey]Run) {
	spec := presetSpec(b, figureRemedies, false, name)
	picked := map[remedyKey]Run{}
	for _, r := range spec.Expand() {
		if r.Replicate != 0 {
			continue
		}
		k := remedyKey{r.Stages, r.Method}
		if p, ok := picked[k]; !ok || r.Step < p.Step {
			picked[k] = r
		}
	}
	return spec, picked
}
