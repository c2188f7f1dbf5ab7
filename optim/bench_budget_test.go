package optim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// doublingMatch is the reference's search (docs/reference.md §1.6):
// double n until the budget is reached, then bisect between the last two.
func doublingMatch(budget float64, duration func(int) (float64, error)) (int, error) {
	lo, hi := 0, 1
	t, err := duration(hi)
	for ; err == nil && t < budget; t, err = duration(hi) {
		lo, hi = hi, 2*hi
	}
	for err == nil && hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if t, err = duration(mid); t >= budget {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, err
}

// BenchmarkMatchBudgetS128 matches the scaling figure's budget of 3180
// steps with PipeDream's grid at S = 128 (N = 1463), each call generating
// a table: the guided search against doubling and bisecting, the same N.
func BenchmarkMatchBudgetS128(b *testing.B) {
	duration := GridDuration("pipedream", pipeline.Shape{Ranks: 128})
	var calls int
	counted := func(n int) (float64, error) { calls++; return duration(n) }
	b.Run("guided", func(b *testing.B) {
		calls = 0
		for b.Loop() {
			if m, err := MatchBudget(3180, counted); err != nil || m.Microbatches != 1463 {
				b.Fatal(m, err)
			}
		}
		b.ReportMetric(float64(calls)/float64(b.N), "timelines/op")
	})
	b.Run("doubling", func(b *testing.B) {
		calls = 0
		for b.Loop() {
			if n, err := doublingMatch(3180, counted); err != nil || n != 1463 {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(calls)/float64(b.N), "timelines/op")
	})
}
