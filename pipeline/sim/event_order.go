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
// SortEvents would order them had they been appended as they ended, ties
// included. Sorting was the largest share of a simulation; sorting small
// keys and then building each event once, in its place, costs less than
// sorting whole events.
//
// The run lists the keys in the order things ended, and they are sorted
// with SortEvents' comparison by the same function (slices.SortFunc). That
// algorithm moves elements by the outcomes of its comparisons alone, so
// the keys end in the order the events would. Ties do occur: a rank that
// sends two messages at the same moment has two events at Index -1.
func (s *simulator) timeline() []Event {
	sortKeys(s.ran)
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

// sortKeys sorts event keys as SortEvents sorts events: by start, rank,
// then position in the row.
func sortKeys(keys []eventKey) {
	slices.SortFunc(keys, func(a, b eventKey) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
}
