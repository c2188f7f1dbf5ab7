package optim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// BenchmarkStageDelaysS64 is what "pipelab delays --stages 64" computes:
// PipeDream's table for S = 64 and N = 10S, its unit-time timeline (the
// grid, which places every action in the step it runs) and the delay
// profile (2.6 M delays counted, none kept). The reference code builds the
// same timeline and the K × S delay matrix (docs/benchmarks.md compares
// the two).
func BenchmarkStageDelaysS64(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 64, Microbatches: 640})
		if err != nil {
			b.Fatal(err)
		}
		p, err := StageDelays(sim.FromGrid(tab), Steady)
		if err != nil {
			b.Fatal(err)
		}
		if p.Total.Max != DefaultDelta(64) {
			b.Fatal("wrong maximum")
		}
	}
}

// BenchmarkDelayTableS64 keeps every row instead (Delays, RPD's exact
// model) and takes the statistics from them, for comparison.
func BenchmarkDelayTableS64(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 64, Microbatches: 640})
		if err != nil {
			b.Fatal(err)
		}
		dt, err := Delays(sim.FromGrid(tab))
		if err != nil {
			b.Fatal(err)
		}
		if dt.Stats(Steady).Max != DefaultDelta(64) {
			b.Fatal("wrong maximum")
		}
	}
}
