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
func sortByMoment(events []Event) {
	for lo := 0; lo < len(events); {
		hi := lo + 1
		for hi < len(events) && events[hi].Start == events[lo].Start {
			hi++
		}
		if moment := events[lo:hi]; !slices.IsSortedFunc(moment, byRankIndex) {
			slices.SortStableFunc(moment, byRankIndex)
		}
		lo = hi
	}
}

// byRankIndex compares events of one start time as SortEvents does.
func byRankIndex(a, b Event) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Index, b.Index))
}
