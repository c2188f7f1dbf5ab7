package sim

import (
	"cmp"
	"slices"
)

// The run lists each event as its action starts, and nothing starts before
// the moment the event loop is at, so the events come in order of start
// time already: only the events of one moment need ordering by rank and
// position, and a stable order keeps ties (a rank that sends two messages
// at one moment has two events at Index -1) in the order they started.
// drive orders each moment as it ends, while its events are still in
// cache, so the timeline is in SortEvents' order when the loop ends.
//
// A moment's events come in a few runs already in order: the transfers
// that left as the moment's events were handled (in the order the loop
// handled them, which is mostly rank order), then the computes the ranks
// started, in rank order, in each round of the dispatch (1F1B on 64 ranks
// has 2.9 runs in a moment of 17 events on average). momentOrder finds the
// runs, merges their keys, and moves each event once to its place: linear
// in the events for a bounded number of runs, where sorting them all was
// the largest share of a simulation.
type momentOrder struct {
	keys, spare    []momentKey
	runs, nextRuns []int
}

// momentKey is an event of one moment as momentOrder orders it: rank,
// position in the row, and where the event is among the moment's events.
type momentKey struct{ rank, index, pos int32 }

func (a momentKey) less(b momentKey) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.index < b.index)
}

// sort puts the events of one moment in order of rank, then position in
// the row, keeping ties in the order they are given.
func (o *momentOrder) sort(moment []Event) {
	o.runs = append(o.runs[:0], 0)
	o.keys = o.keys[:0]
	for i, e := range moment {
		k := momentKey{int32(e.Rank), int32(e.Index), int32(i)}
		if i > 0 && k.less(o.keys[i-1]) {
			o.runs = append(o.runs, i)
		}
		o.keys = append(o.keys, k)
	}
	if len(o.runs) == 1 {
		return
	}
	o.runs = append(o.runs, len(moment))
	keys := o.mergeRuns()
	// Event i goes where its key is: follow each cycle of the
	// permutation, moving every event once.
	for i := range keys {
		if keys[i].pos < 0 || int(keys[i].pos) == i {
			continue
		}
		held := moment[i]
		j := i
		for {
			from := int(keys[j].pos)
			keys[j].pos = -1
			if from == i {
				moment[j] = held
				break
			}
			moment[j] = moment[from]
			j = from
		}
	}
}

// mergeRuns merges the ascending runs of o.keys, bounded by o.runs (the
// first run's start, each next run's start, the end), pair by pair until
// one is left, and returns it. Each merge takes from the left run on ties,
// so the order is stable.
func (o *momentOrder) mergeRuns() []momentKey {
	src := o.keys
	dst := slices.Grow(o.spare[:0], len(src))[:len(src)]
	bounds, next := o.runs, o.nextRuns[:0]
	for len(bounds) > 2 {
		next = append(next[:0], 0)
		for i := 0; i+1 < len(bounds); i += 2 {
			lo, mid, hi := bounds[i], bounds[i+1], bounds[i+1]
			if i+2 < len(bounds) {
				hi = bounds[i+2]
			}
			merge(dst[lo:hi], src[lo:mid], src[mid:hi])
			next = append(next, hi)
		}
		bounds, next = next, bounds
		src, dst = dst, src
	}
	o.runs, o.nextRuns = bounds, next
	o.keys, o.spare = src, dst
	return src
}

// merge merges the ascending runs a and b into out, taking from a on ties.
func merge(out, a, b []momentKey) {
	i, j := 0, 0
	for k := range out {
		if j >= len(b) || (i < len(a) && !b[j].less(a[i])) {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
}

// byRankIndex compares events of one start time as SortEvents does.
func byRankIndex(a, b Event) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Index, b.Index))
}
