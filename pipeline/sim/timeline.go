package sim

import (
	"cmp"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
)

// Event is one timed action of a timeline: the action at position Index of
// rank Rank's row, running from Start to End.
type Event struct {
	Rank   int
	Index  int
	Action pipeline.Action
	Start  float64
	End    float64
}

// Timeline is a timed schedule table: for every non-bubble action of
// Table, the rank it ran on and when. Events are sorted by (Start, Rank,
// Index); Simulate lists events equal in all three (transfers a rank
// starts at one moment) in the order they started. Time is in the cost model's unit (steps for unit costs, seconds
// under the GPU model); sums of integer costs are exact in float64.
type Timeline struct {
	Table  *pipeline.Table
	Events []Event
}

// SortEvents puts events in timeline order: start time, then rank, then
// position in the row. Events equal in all three keep their order.
func SortEvents(events []Event) {
	slices.SortStableFunc(events, func(a, b Event) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
}

// FromGrid reads a table as an idealised unit-time grid: the cell in
// column c of a row runs from c to c+1 and bubbles take their column. This
// is the "idealised table" level of the tabular-schedule comparison, and
// the timeline of generators such as asynchronous PipeDream, which place
// every action in the step it runs. Walking the grid column by column,
// rank by rank, lists the events in timeline order, with no sort.
func FromGrid(t *pipeline.Table) *Timeline {
	events, columns := 0, 0
	for _, row := range t.Rows {
		columns = max(columns, len(row))
		for _, a := range row {
			if !a.IsBubble() {
				events++
			}
		}
	}
	tl := &Timeline{Table: t, Events: make([]Event, 0, events)}
	for c := range columns {
		for r, row := range t.Rows {
			if c < len(row) && !row[c].IsBubble() {
				tl.Events = append(tl.Events, Event{Rank: r, Index: c, Action: row[c], Start: float64(c), End: float64(c + 1)})
			}
		}
	}
	return tl
}
