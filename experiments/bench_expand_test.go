package experiments

import "testing"

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
