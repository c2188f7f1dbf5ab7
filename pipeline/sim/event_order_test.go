package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"pipelab/pipeline"
	"pipelab/pipeline/cost"
)

// A momentLog must read each moment's starts exactly in the order
// SortEvents (a stable sort by start, rank and position) leaves them,
// ties included, or a simulation's timeline would depend on which of the
// two ordered it: the reference is a stable sort by (rank, position) of
// the starts in the order they were logged. Random starts drawn from few
// ranks and positions tie often; the sizes cover moments of one start, of
// a dozen and of thousands, on up to 200 ranks (four bitmap words), and
// one log serves every moment in turn, as in a run.
func TestMomentLogIsSortEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ranks := range []int{1, 3, 64, 200} {
		log := newMomentLog(ranks)
		for _, n := range []int{0, 1, 2, 5, 12, 13, 50, 1000, 20000} {
			for _, spread := range []int{2, 8, 1000} {
				var want []started
				for i := range n {
					s := started{
						end:  float64(rng.IntN(4)),
						id:   int32(i), // tells tied starts apart
						rank: int32(rng.IntN(ranks)), index: int32(rng.IntN(spread)%5 - 1),
					}
					log.add(s.rank, s.index, s.id, s.end)
					want = append(want, s)
				}
				slices.SortStableFunc(want, func(a, b started) int {
					return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.index, b.index))
				})
				order := log.ordered()
				got := make([]started, len(order))
				for k, i := range order {
					got[k] = log.items[i]
					got[k].next = 0
				}
				log.clear()
				for k := range want {
					want[k].next = 0
				}
				if !slices.Equal(got, want) {
					t.Errorf("ranks=%d n=%d spread=%d: the moment's starts read unlike SortEvents' order", ranks, n, spread)
				}
			}
		}
	}
}

// Every simulated timeline is in SortEvents' order, whatever the family,
// the costs (zero-time actions let a rank start twice at one moment) and
// the policy.
func TestSimulateTimelineIsSorted(t *testing.T) {
	costs := []cost.Model{cost.Unit{}, cost.Explicit{TF: 1, TB: 2, Comm: 0.25}, cost.Explicit{TF: 1, TB: 1, TW: 1, Comm: 0}}
	opts := []Options{{}, {Policy: Ready, Patience: NoWait}, {Variability: Variability{Seed: 3, Sigma: 0.2, CommSigma: 0.1}}}
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
				}
			}
		}
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
