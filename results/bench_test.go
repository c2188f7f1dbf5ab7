package results

import (
	"path/filepath"
	"testing"
)

// BenchmarkWriteCurves writes 1e5 curve points (100 runs × 1000 points,
// shuffled, so the writer sorts them) to Parquet, the size of a sweep's
// loss curves.
func BenchmarkWriteCurves(b *testing.B) {
	points := genCurves(100, 1000)
	path := filepath.Join(b.TempDir(), CurvesFile)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteCurves(path, points); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(points)), "points/op")
}

// BenchmarkReadCurves reads the same 1e5 points back.
func BenchmarkReadCurves(b *testing.B) {
	path := filepath.Join(b.TempDir(), CurvesFile)
	if err := WriteCurves(path, genCurves(100, 1000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCurves(path); err != nil {
			b.Fatal(err)
		}
	}
}
