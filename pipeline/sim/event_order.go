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
// the order they started in. A momentLog gathers a moment's starts by
// rank as they happen, one chain per rank, and a bitmap says which ranks
// have any. Reading the moment in order is then a walk of the bitmap's set
// bits and of each chain: linear in the moment's starts, with no
// comparison across ranks. Within one rank starts come in row order
// except where zero-time actions let a rank start twice in a moment, and
// only then is that rank's chain sorted. drive reads each moment as it
// ends and writes its events straight to their place in the timeline.
type momentLog struct {
	items []started
	// first and last are each rank's first and last start of the moment,
	// -1 for none.
	first, last []int32
	// hasAny has bit r set when rank r started something this moment;
	// words lo to hi may have bits set.
	hasAny []uint64
	lo, hi int
	order  []int32
}

// started is one start of the current moment: a node (id >= 0) or an
// implicit transfer (^id), on rank rank at position index (-1 for a
// transfer), ending at end; next is the rank's next start of the moment.
type started struct {
	end         float64
	id          int32
	rank, index int32
	next        int32
}

func newMomentLog(ranks int) momentLog {
	l := momentLog{
		first:  make([]int32, ranks),
		last:   make([]int32, ranks),
		hasAny: make([]uint64, (ranks+63)/64),
	}
	l.lo = len(l.hasAny)
	for r := range l.first {
		l.first[r] = -1
	}
	return l
}

// add logs a start of the current moment.
func (l *momentLog) add(rank, index, id int32, end float64) {
	i := int32(len(l.items))
	l.items = append(l.items, started{end: end, id: id, rank: rank, index: index, next: -1})
	if f := l.first[rank]; f >= 0 {
		l.items[l.last[rank]].next = i
	} else {
		l.first[rank] = i
		w := int(rank >> 6)
		l.hasAny[w] |= 1 << (rank & 63)
		l.lo, l.hi = min(l.lo, w), max(l.hi, w)
	}
	l.last[rank] = i
}

// ordered returns the moment's starts, as positions in l.items, in order
// of rank, then position, then start. The caller reads them and then
// empties the log for the next moment (clear).
func (l *momentLog) ordered() []int32 {
	order := l.order[:0]
	for w := l.lo; w <= l.hi && w < len(l.hasAny); w++ {
		word := l.hasAny[w]
		l.hasAny[w] = 0
		for word != 0 {
			r := w<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			from, sorted, prev := len(order), true, int32(-1<<31)
			for i := l.first[r]; i >= 0; i = l.items[i].next {
				index := l.items[i].index
				sorted = sorted && index >= prev
				prev = index
				order = append(order, i)
			}
			l.first[r] = -1
			if !sorted {
				slices.SortStableFunc(order[from:], func(a, b int32) int {
					return cmp.Compare(l.items[a].index, l.items[b].index)
				})
			}
		}
	}
	l.lo, l.hi = len(l.hasAny), 0
	l.order = order
	return order
}

// clear empties the log once its moment is read.
func (l *momentLog) clear() { l.items = l.items[:0] }
