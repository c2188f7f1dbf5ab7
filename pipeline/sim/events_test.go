package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The event queue hands events out by time, and in the order they were
// scheduled among equal times, whatever order they were scheduled in.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q eventQueue
	var want []event
	for i := range 500 {
		at := float64(rng.IntN(20))
		q.schedule(at, evCompute, int32(i))
		want = append(want, event{time: at, seq: uint64(i + 1), kind: evCompute, id: int32(i)})
		if i%7 == 0 { // interleave pops with pushes
			slices.SortStableFunc(want, func(a, b event) int { return cmp.Compare(a.time, b.time) })
			if got := q.pop(); got != want[0] {
				t.Fatalf("pop %d: %+v, want %+v", i, got, want[0])
			}
			want = want[1:]
		}
	}
	slices.SortStableFunc(want, func(a, b event) int { return cmp.Compare(a.time, b.time) })
	for _, w := range want {
		if q.earliest() != w.time {
			t.Fatalf("earliest %v, want %v", q.earliest(), w.time)
		}
		if got := q.pop(); got != w {
			t.Fatalf("pop %+v, want %+v", got, w)
		}
	}
	if q.len() != 0 {
		t.Errorf("%d events left", q.len())
	}
}
