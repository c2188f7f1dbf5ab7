package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pipelab/pipeline"
)

// sortKeys must leave events exactly where SortEvents does, ties in
// (Start, Rank, Index) included, or a simulation's timeline would depend
// on which of the two ordered it. Random events drawn from few starts,
// ranks and positions tie often; the sizes cover insertion sort (at most
// 12 elements) and pdqsort's partitioning and pattern breaking.
func TestSortKeysIsSortEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 5, 12, 13, 50, 1000, 20000} {
		for _, spread := range []int{2, 8, 1000} {
			events := make([]Event, n)
			for i := range events {
				start := float64(rng.IntN(spread)) / 4
				events[i] = Event{
					Rank: rng.IntN(3), Index: rng.IntN(3) - 1,
					Action: pipeline.Act(pipeline.SendF, rng.IntN(8), i), // tells tied events apart
					Start:  start, End: start + float64(rng.IntN(4)),
				}
			}
			want := slices.Clone(events)
			SortEvents(want)
			keys := make([]eventKey, n)
			for i, e := range events {
				keys[i] = eventKey{start: e.Start, rank: int32(e.Rank), index: int32(e.Index), ref: int32(i)}
			}
			sortKeys(keys)
			got := make([]Event, n)
			for i, k := range keys {
				got[i] = events[k.ref]
			}
			if !slices.Equal(got, want) {
				t.Errorf("n=%d spread=%d: sortKeys orders events unlike SortEvents", n, spread)
			}
		}
	}
}
