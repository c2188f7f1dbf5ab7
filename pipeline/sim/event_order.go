package sim

import (
	"cmp"
	"slices"
)

// timeline returns the events of the run in timeline order, exactly as
// SortEvents orders them when given in the order they started.
//
// The run lists each event as its action starts, and nothing starts before
// the moment the event loop is at, so the events come in order of start
// time already: only the events of one moment need ordering by rank and
// position, a few at a time, and a stable sort keeps ties (a rank that
// sends two messages at one moment has two events at Index -1) in the
// order they started. The cost is linear in the events, where sorting them
// all was the largest share of a simulation.
func (s *simulator) timeline() []Event {
	sortByMoment(s.ran)
	return s.ran
}

// sortByMoment sorts events given in order of start time by rank, then
// position in the row, within each start time, keeping ties in order.
//
// A moment whose events are out of order (transfers that left as their
// message was made, in the order the event loop ended what made them,
// before the computes the ranks started in rank order) is sorted by its
// keys, 16 bytes an event with the position as the last key, so that ties
// keep their order without a stable sort, and its events are then moved
// once each.
func sortByMoment(events []Event) {
	var keys []momentKey
	var moved []Event
	for lo := 0; lo < len(events); {
		hi := lo + 1
		for hi < len(events) && events[hi].Start == events[lo].Start {
			hi++
		}
		if moment := events[lo:hi]; !slices.IsSortedFunc(moment, byRankIndex) {
			keys = keys[:0]
			for i, e := range moment {
				keys = append(keys, momentKey{int32(e.Rank), int32(e.Index), int32(i)})
			}
			slices.SortFunc(keys, momentKey.compare)
			moved = append(moved[:0], moment...)
			for i, k := range keys {
				moment[i] = moved[k.pos]
			}
		}
		lo = hi
	}
}

// momentKey is an event of one moment as sortByMoment orders it: rank,
// position in the row, position among the moment's events.
type momentKey struct{ rank, index, pos int32 }

func (a momentKey) compare(b momentKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.index, b.index), cmp.Compare(a.pos, b.pos))
}

// byRankIndex compares events of one start time as SortEvents does.
func byRankIndex(a, b Event) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Index, b.Index))
}
