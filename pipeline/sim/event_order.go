package sim

import (
	"cmp"
	"math/bits"
	"slices"
)

// Nothing starts before the moment the event loop is at, so what starts
// comes in order of start time already: only what starts at one moment
// needs ordering, by rank and then position in the row, and ties (a rank
// that sends two messages at one moment has two events at Index -1) keep
// the order they started in. The run logs what starts at the moment it is
// at as a 24-byte start, and as it leaves the moment a momentOrder puts
// each of the moment's starts its place in that order; the run then
// writes each event once, in its place (see simulator.endMoment), so the
// timeline is in SortEvents' order when the loop ends.
//
// momentOrder places a moment's starts by counting: one pass counts each
// rank's starts and marks the rank in a bitmap, a walk of the bitmap's set
// bits turns the counts into each rank's first place, and one more pass
// gives every start its place. That is linear in the moment's starts
// whatever order they come in, with no comparison across ranks, and moves
// nothing: the caller writes each event straight to its place. A moment
// already in order is only read. Within one rank things start in row order
// except where zero-time actions let a rank start twice in a moment; the
// counting pass notices, and only then are the places found by a stable
// sort instead.
type momentOrder struct {
	// at is, per rank, its count of starts and then its next place;
	// index is the position of the rank's last start counted.
	at, index []int32
	// hasAny has bit r set when rank r has starts in the moment.
	hasAny []uint64
	places []int32
	sorted []int32 // the starts in order, when a rank's are not in row order
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

// place returns, for each start of one moment, its place in the order of
// rank, then position in the row, ties in the order they are given; nil
// when the moment is in that order already. The places stay valid until
// the next call.
func (o *momentOrder) place(moment []start) []int32 {
	i := 1
	for i < len(moment) && !moment[i].before(moment[i-1]) {
		i++
	}
	if i >= len(moment) {
		return nil
	}
	at, index, hasAny := o.at, o.index, o.hasAny
	lo, hi := len(hasAny), 0
	inRowOrder := true
	for i := range moment {
		r := moment[i].rank
		if int(r) >= len(at) {
			o.fit(int(r) + 1)
			at, index, hasAny = o.at, o.index, o.hasAny
		}
		if at[r] == 0 {
			w := int(r >> 6)
			hasAny[w] |= 1 << (r & 63)
			lo, hi = min(lo, w), max(hi, w)
		} else if moment[i].index < index[r] {
			inRowOrder = false
		}
		index[r] = moment[i].index
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
	places := slices.Grow(o.places[:0], len(moment))[:len(moment)]
	o.places = places
	for i := range moment {
		r := moment[i].rank
		places[i] = at[r]
		at[r]++
	}
	for w := lo; w <= hi; w++ {
		word := hasAny[w]
		hasAny[w] = 0
		for ; word != 0; word &= word - 1 {
			at[w<<6+bits.TrailingZeros64(word)] = 0
		}
	}
	if !inRowOrder {
		o.sortPlaces(moment)
	}
	return places
}

// sortPlaces sets o.places by a stable sort of the moment's starts.
func (o *momentOrder) sortPlaces(moment []start) {
	sorted := o.sorted[:0]
	for i := range moment {
		sorted = append(sorted, int32(i))
	}
	slices.SortStableFunc(sorted, func(a, b int32) int {
		x, y := moment[a], moment[b]
		return cmp.Or(cmp.Compare(x.rank, y.rank), cmp.Compare(x.index, y.index))
	})
	for p, i := range sorted {
		o.places[i] = int32(p)
	}
	o.sorted = sorted
}

// fit makes room for ranks 0 to ranks-1, keeping what is counted.
func (o *momentOrder) fit(ranks int) {
	if len(o.at) < ranks {
		o.at = append(o.at, make([]int32, ranks-len(o.at))...)
		o.index = append(o.index, make([]int32, ranks-len(o.index))...)
		o.hasAny = append(o.hasAny, make([]uint64, (ranks+63)/64-len(o.hasAny))...)
	}
}
