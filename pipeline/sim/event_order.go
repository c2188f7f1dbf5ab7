package sim

import (
	"math/bits"
	"slices"
)

// Nothing starts before the moment the event loop is at, so what starts
// comes in order of start time already: only what starts at one moment
// needs ordering, by rank and then position in the row, and ties (a rank
// that sends two messages at one moment has two events at Index -1) keep
// the order they started in. The run logs what starts at the moment it is
// at as a 24-byte start, and as it leaves the moment a momentOrder puts
// the moment's starts in that order; the run then writes each event once,
// in its place (see simulator.endMoment), so the timeline is in
// SortEvents' order when the loop ends.
//
// momentOrder sorts a moment by counting: one pass counts each rank's
// starts and marks the rank in a bitmap, a walk of the bitmap's set bits
// turns the counts into each rank's first place, and one more pass copies
// every start to its place. That is linear in the moment's starts whatever
// order they come in, with no comparison across ranks; a moment already
// in order is only read. Within one rank things start in row order except
// where zero-time actions let a rank start twice in a moment, and only
// then is that rank's block sorted.
type momentOrder struct {
	// at is, per rank, its count of starts and then its next place.
	at []int32
	// hasAny has bit r set when rank r has starts in the moment.
	hasAny []uint64
	spare  []start
}

// start is one thing that starts at a moment: node id, or implicit
// transfer ^id, on rank rank at position index of its row (-1 for an
// implicit transfer), ending at end.
type start struct {
	end         float64
	id          int32
	rank, index int32
}

func (a start) before(b start) bool {
	return a.rank < b.rank || a.rank == b.rank && a.index < b.index
}

// sort returns the starts of one moment in order of rank, then position
// in the row, ties in the order they are given: moment itself when it is
// in order already, else a reordered copy that stays valid until the next
// call.
func (o *momentOrder) sort(moment []start) []start {
	i := 1
	for i < len(moment) && !moment[i].before(moment[i-1]) {
		i++
	}
	if i >= len(moment) {
		return moment
	}
	at, hasAny := o.at, o.hasAny
	lo, hi := len(hasAny), 0
	for i := range moment {
		r := moment[i].rank
		if int(r) >= len(at) {
			o.fit(int(r) + 1)
			at, hasAny = o.at, o.hasAny
		}
		if at[r] == 0 {
			w := int(r >> 6)
			hasAny[w] |= 1 << (r & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
		at[r]++
	}
	place := int32(0)
	for w := lo; w <= hi; w++ {
		for word := hasAny[w]; word != 0; word &= word - 1 {
			r := w<<6 + bits.TrailingZeros64(word)
			n := at[r]
			at[r] = place
			place += n
		}
	}
	out := slices.Grow(o.spare[:0], len(moment))[:len(moment)]
	o.spare = out
	for i := range moment {
		r := moment[i].rank
		out[at[r]] = moment[i]
		at[r]++
	}
	// Reset the counts, and sort by position any rank whose starts did
	// not come in row order.
	from := int32(0)
	for w := lo; w <= hi; w++ {
		word := hasAny[w]
		hasAny[w] = 0
		for ; word != 0; word &= word - 1 {
			r := w<<6 + bits.TrailingZeros64(word)
			to := at[r]
			at[r] = 0
			for i := from + 1; i < to; i++ {
				if out[i].index < out[i-1].index {
					block := out[from:to]
					slices.SortStableFunc(block, func(a, b start) int { return int(a.index) - int(b.index) })
					break
				}
			}
			from = to
		}
	}
	return out
}

// fit makes room for ranks 0 to ranks-1, keeping what is counted.
func (o *momentOrder) fit(ranks int) {
	if len(o.at) < ranks {
		o.at = append(o.at, make([]int32, ranks-len(o.at))...)
		o.hasAny = append(o.hasAny, make([]uint64, (ranks+63)/64-len(o.hasAny))...)
	}
}
