package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The event queue hands events out by time, and in the order they were
// scheduled among equal times (0 and -0 being one time), whatever order
// they were scheduled in; each keeps its kind and id. The reference is a stable sort by time of the
// events in the order they were scheduled.
func TestEventQueueOrder(t *testing.T) {
	type scheduled struct {
		time float64
		kind eventKind
		id   int32
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var q eventQueue
	var want []scheduled
	check := func(at string, w scheduled) {
		t.Helper()
		if q.earliest() != w.time {
			t.Fatalf("%s: earliest %v, want %v", at, q.earliest(), w.time)
		}
		if got, ok := q.next(w.time); !ok || got.kind != w.kind || got.id != w.id {
			t.Fatalf("%s: pop (%v, %d), want %+v", at, got.kind, got.id, w)
		}
	}
	byTime := func(a, b scheduled) int { return cmp.Compare(a.time, b.time) }
	for i := range 2000 {
		// Times from 0 (and -0) up, some of them far apart.
		at := float64(rng.IntN(20)) * []float64{1, 0.25, 1e9}[rng.IntN(3)]
		if rng.IntN(10) == 0 {
			at = math.Copysign(0, -1)
		}
		w := scheduled{at, eventKind(rng.IntN(3)), int32(rng.IntN(1 << 30))}
		q.schedule(w.time, w.kind, w.id)
		want = append(want, w)
		if i%7 == 0 { // interleave pops with pushes
			slices.SortStableFunc(want, byTime)
			check("early", want[0])
			want = want[1:]
		}
	}
	slices.SortStableFunc(want, byTime)
	if _, ok := q.next(want[0].time - 1); ok {
		t.Error("an event before its time")
	}
	for _, w := range want {
		check("late", w)
	}
	if q.len() != 0 {
		t.Errorf("%d events left", q.len())
	}
	if _, ok := q.next(0); ok {
		t.Error("an event from an empty queue")
	}
}
