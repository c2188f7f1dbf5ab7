package experiments

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkSweepOverhead times the runner's own work for the 28 runs of
// testdata/tiny.yaml with a run function that costs almost nothing: the
// fsynced record per run, the gathering and the Parquet tables.
func BenchmarkSweepOverhead(b *testing.B) {
	runs := tinyRuns(b)
	tmp := b.TempDir()
	i := 0
	for b.Loop() {
		rn := Runner{Dir: filepath.Join(tmp, strconv.Itoa(i)), Jobs: 2, Execute: fakeRun}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(runs)), "µs/run")
}

// BenchmarkExpand times the expansion of the full scaling figure (217
// unit-time and 124 GPU runs).
func BenchmarkExpand(b *testing.B) {
	f, err := LookupFigure("scaling")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := f.Runs(false); err != nil {
			b.Fatal(err)
		}
	}
}
