package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// momentOrder, moment by moment, must put events given in order of
// start time exactly where SortEvents (a stable sort by start, rank and
// position) does, ties included, or a simulation's timeline would depend on which of the two
// ordered it. Random events drawn from few starts, ranks and positions tie
// often; the sizes cover moments of one event, of a dozen and of
// thousands.
func TestMomentOrderIsSortEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 5, 12, 13, 50, 1000, 20000} {
		for _, spread := range []int{2, 8, 1000} {
			events := make([]Event, n)
			for i := range events {
				start := float64(rng.IntN(spread)) / 4
				events[i] = Event{
					Rank: rng.IntN(3), Index: rng.IntN(3) - 1,
					Action: pipeline.Act(pipeline.SendF, rng.IntN(8), i), // tells tied events apart
					Start:  start, End: start + float64(rng.IntN(4)),
				}
			}
			// As the simulator lists them: by start time, in any order
			// within a moment.
			slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Start, b.Start) })
			want := slices.Clone(events)
			SortEvents(want)
			// The simulator's starts name their events by id, here the
			// position in events.
			var got []Event
			var order momentOrder
			for lo := 0; lo < len(events); {
				hi := lo + 1
				for hi < len(events) && events[hi].Start == events[lo].Start {
					hi++
				}
				var moment []start
				for i := lo; i < hi; i++ {
					e := events[i]
					moment = append(moment, start{end: e.End, id: int32(i), rank: int32(e.Rank), index: int32(e.Index)})
				}
				sorted := slices.Clone(moment)
				if places := order.place(moment); places != nil {
					for i, p := range places {
						sorted[p] = moment[i]
					}
				}
				for _, st := range sorted {
					got = append(got, events[st.id])
				}
				lo = hi
			}
			if !slices.Equal(got, want) {
				t.Errorf("n=%d spread=%d: momentOrder orders events unlike SortEvents", n, spread)
			}
		}
	}
}

// Every simulated timeline is in SortEvents' order, whatever the family,
// lowered or not, the costs (zero-time actions and transfers let a rank
// start twice at one moment) and the policy.
func TestSimulateTimelineIsSorted(t *testing.T) {
	costs := []cost.Model{cost.Unit{}, cost.Explicit{TF: 1, TB: 2, Comm: 0.25}, cost.Explicit{TF: 1, TB: 1, TW: 1, Comm: 0}}
	opts := []Options{{}, {Policy: Ready, Patience: NoWait}, {Variability: Variability{Seed: 3, Sigma: 0.2, CommSigma: 0.1}}}
	runs := 0
	for _, tb := range allFamilies(t) {
		tables := []*pipeline.Table{tb}
		if low, err := pipeline.Lower(tb); err == nil {
			tables = append(tables, low)
		}
		for _, tt := range tables {
			for ci, c := range costs {
				for oi, o := range opts {
					tl, err := Simulate(tt, c, o)
					if err != nil {
						t.Fatalf("%s cost %d options %d: %v", tt.Family, ci, oi, err)
					}
					want := slices.Clone(tl.Events)
					SortEvents(want)
					if !slices.Equal(tl.Events, want) {
						t.Errorf("%s cost %d options %d: the timeline is not in SortEvents' order", tt.Family, ci, oi)
					}
					runs++
				}
			}
		}
	}
	if runs < 100 {
		t.Errorf("only %d timelines checked", runs)
	}
}

// FromGrid's column-by-column walk lists events exactly as SortEvents
// orders them, for rows of different lengths with bubbles.
func TestFromGridIsSorted(t *testing.T) {
	for _, fam := range []string{"pipedream", "1f1b", "zb-v", "chimera"} {
		tb, err := pipeline.Generate(fam, pipeline.Shape{Ranks: 4, Microbatches: 8})
		if err != nil {
			t.Fatal(err)
		}
		tl := FromGrid(tb)
		want := slices.Clone(tl.Events)
		SortEvents(want)
		if !slices.Equal(tl.Events, want) {
			t.Errorf("%s: FromGrid's %d events are not in SortEvents' order", fam, len(want))
		}
		cells := 0
		for _, row := range tb.Rows {
			for _, a := range row {
				if !a.IsBubble() {
					cells++
				}
			}
		}
		if len(tl.Events) != cells {
			t.Errorf("%s: %d events for %d actions", fam, len(tl.Events), cells)
		}
	}
}
