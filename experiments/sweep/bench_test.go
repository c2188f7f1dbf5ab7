package sweep

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
