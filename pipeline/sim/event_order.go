package sim

import (
	"cmp"
	"math/bits"
	"slices"
)

// The run lists each event as its action starts, and nothing starts before
// the moment the event loop is at, so the events come in order of start
// time already: only the events of one moment need ordering by rank and
// position, and a stable order keeps ties (a rank that sends two messages
// at one moment has two events at Index -1) in the order they started.
// drive orders each moment as the loop leaves it, while its events are
// still in cache, so the timeline is in SortEvents' order when the loop
// ends.
//
// momentOrder sorts a moment by counting: one pass counts each rank's
// events and marks the rank in a bitmap, a walk of the bitmap's set bits
// turns the counts into each rank's first place, and one more pass copies
// every event to its place. That is linear in the moment's events whatever
// order they come in, with no comparison across ranks; a moment already
// in order is only read. Within one rank events start in row order except
// where zero-time actions let a rank start twice in a moment, and only
// then is that rank's block sorted.
type momentOrder struct {
	// at is, per rank, its count of events and then its next place.
	at []int32
	// hasAny has bit r set when rank r has events in the moment.
	hasAny []uint64
	spare  []Event
}

// sort puts the events of one moment in order of rank, then position in
// the row, keeping ties in the order they are given.
func (o *momentOrder) sort(moment []Event) {
	sorted, top := true, 0
	for i := 1; i < len(moment); i++ {
		a, b := &moment[i-1], &moment[i]
		if b.Rank < a.Rank || b.Rank == a.Rank && b.Index < a.Index {
			sorted = false
		}
		top = max(top, b.Rank)
	}
	if sorted {
		return
	}
	o.fit(max(top, moment[0].Rank) + 1)
	lo, hi := len(o.hasAny), 0
	for i := range moment {
		r := moment[i].Rank
		if o.at[r] == 0 {
			w := r >> 6
			o.hasAny[w] |= 1 << (r & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
		o.at[r]++
	}
	place := int32(0)
	for w := lo; w <= hi; w++ {
		for word := o.hasAny[w]; word != 0; word &= word - 1 {
			r := w<<6 + bits.TrailingZeros64(word)
			n := o.at[r]
			o.at[r] = place
			place += n
		}
	}
	spare := slices.Grow(o.spare[:0], len(moment))[:len(moment)]
	for i := range moment {
		r := moment[i].Rank
		spare[o.at[r]] = moment[i]
		o.at[r]++
	}
	copy(moment, spare)
	o.spare = spare
	// Reset the counts, and sort by position any rank whose events did
	// not start in row order.
	from := int32(0)
	for w := lo; w <= hi; w++ {
		word := o.hasAny[w]
		o.hasAny[w] = 0
		for ; word != 0; word &= word - 1 {
			r := w<<6 + bits.TrailingZeros64(word)
			to := o.at[r]
			o.at[r] = 0
			block := moment[from:to]
			for i := 1; i < len(block); i++ {
				if block[i].Index < block[i-1].Index {
					slices.SortStableFunc(block, func(a, b Event) int { return cmp.Compare(a.Index, b.Index) })
					break
				}
			}
			from = to
		}
	}
}

// fit makes room for ranks 0 to ranks-1.
func (o *momentOrder) fit(ranks int) {
	if len(o.at) < ranks {
		o.at = make([]int32, ranks)
		o.hasAny = make([]uint64, (ranks+63)/64)
	}
}
