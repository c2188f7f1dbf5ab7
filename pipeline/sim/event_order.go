package sim

import (
	"cmp"
	"slices"
)

// eventKey is what SortEvents compares of an event, and what the event
// is: node ref, or implicit transfer ^ref.
type eventKey struct {
	start       float64
	rank, index int32
	ref         int32
}

// timeline returns the events of the run in timeline order, exactly as
// SortEvents orders them when given in the order they started.
//
// The run lists the keys as things start, and nothing starts before the
// moment the event loop is at, so the keys come in order of start time
// already: only the keys of one moment need ordering by rank and position,
// a few at a time, and a stable sort keeps ties (a rank that sends two
// messages at one moment has two events at Index -1) in the order they
// started. The cost is linear in the events, where sorting them all was
// the largest share of a simulation.
func (s *simulator) timeline() []Event {
	sortByMoment(s.ran)
	events := make([]Event, len(s.ran))
	for i, k := range s.ran {
		if k.ref >= 0 {
			nd := &s.nodes[k.ref]
			events[i] = Event{Rank: nd.rank, Index: nd.index, Action: nd.act, Start: nd.start, End: nd.end}
		} else {
			xf := &s.xfers[^k.ref]
			events[i] = Event{Rank: xf.from, Index: -1, Action: xf.commAction(true), Start: xf.start, End: xf.end}
		}
	}
	return events
}

// sortByMoment sorts keys given in order of start time by rank, then
// position in the row, within each start time, keeping ties in order.
func sortByMoment(keys []eventKey) {
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].start == keys[lo].start {
			hi++
		}
		if moment := keys[lo:hi]; !slices.IsSortedFunc(moment, byRankIndex) {
			slices.SortStableFunc(moment, byRankIndex)
		}
		lo = hi
	}
}

// byRankIndex compares keys of one start time as SortEvents does.
func byRankIndex(a, b eventKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.index, b.index))
}
