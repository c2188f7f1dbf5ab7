package tune

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

func uniformTimes(p int, st StageTimes) []StageTimes {
	out := make([]StageTimes, p)
	for i := range out {
		out[i] = st
	}
	return out
}

// randomTimes draws per-stage times: T_F, T_B in [0.5, 1.5), T_W in
// [0.1, 1.1), transfers in [0, 0.6).
func randomTimes(rng *rand.Rand, p int) []StageTimes {
	out := make([]StageTimes, p)
	for i := range out {
		out[i] = StageTimes{TF: 0.5 + rng.Float64(), TB: 0.5 + rng.Float64(), TW: 0.1 + rng.Float64(), Comm: 0.6 * rng.Float64()}
	}
	return out
}

func simulateTimes(t *testing.T, tab *pipeline.Table, st []StageTimes) *sim.Timeline {
	t.Helper()
	tl, err := sim.Simulate(tab, stageTimesCost(st), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func handcrafted(t *testing.T, family string, p, m int) *pipeline.Table {
	t.Helper()
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: p, Microbatches: m})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// The must-show: on random per-stage costs with communication,
// zb-auto with the limit P is never slower than ZB-H1 (whose peak is P)
// and with 2P never slower than ZB-H2 (peak 2P-1), both timed by the event
// simulator in fixed order. The handcrafted schedules are among zb-auto's
// candidates, so this holds by construction of the fallback; the test also
// counts how often the heuristic alone wins, ties or loses (logged with
// -v; docs/zb-auto.md reports the counts).
func TestZBAutoNeverSlowerThanHandcrafted(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2401))
	type tally struct {
		wins, ties, losses int
		worst              float64 // the heuristic's largest makespan over the handcrafted one's
		best               float64 // zb-auto's smallest
	}
	h1, h2 := tally{best: 1}, tally{best: 1}
	for _, p := range []int{2, 3, 4, 6, 8} {
		for _, m := range []int{p, 2 * p, 3*p + 1, 4 * p} {
			for range 6 {
				st := randomTimes(rng, p)
				for _, c := range []struct {
					family string
					limit  int
					tally  *tally
				}{{"zb-h1", p, &h1}, {"zb-h2", 2 * p, &h2}} {
					auto, err := ZBAuto(ZBAutoProblem{Stages: st, Microbatches: m, MaxActivations: c.limit})
					if err != nil {
						t.Fatal(err)
					}
					want := sim.Makespan(simulateTimes(t, handcrafted(t, c.family, p, m), st))
					got := sim.Makespan(simulateTimes(t, auto.Table, st))
					if got != auto.Makespan {
						t.Fatalf("P %d M %d: the grid layout changed the makespan: %g, chosen at %g", p, m, got, auto.Makespan)
					}
					if got > want*(1+1e-9) { // equal makespans to a rounding go by span (ZBAuto)
						t.Errorf("P %d M %d limit %d: zb-auto %g slower than %s %g (times %v)", p, m, c.limit, got, c.family, want, st)
					}
					heur := math.Inf(1)
					for _, cand := range auto.Candidates {
						if cand.Source != "zb-h1" && cand.Source != "zb-h2" {
							heur = min(heur, cand.Makespan)
						}
					}
					c.tally.worst = max(c.tally.worst, heur/want)
					c.tally.best = min(c.tally.best, got/want)
					switch {
					case heur < want*(1-1e-9):
						c.tally.wins++
					case heur > want*(1+1e-9):
						c.tally.losses++
					default:
						c.tally.ties++
					}
				}
			}
		}
	}
	t.Logf("heuristic alone against ZB-H1 (limit P): %+v; against ZB-H2 (limit 2P): %+v", h1, h2)
}

// Every zb-auto table is a schedule like the generated ones: it validates,
// keeps the limit, lowers, runs in PyTorch's lockstep check and survives
// the CSV round trip.
func TestZBAutoTableIsASchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for _, c := range []struct{ p, m, limit int }{{1, 3, 0}, {2, 2, 1}, {3, 7, 2}, {4, 8, 0}, {4, 12, 8}, {8, 24, 16}, {5, 3, 10}} {
		st := randomTimes(rng, c.p)
		auto, err := ZBAuto(ZBAutoProblem{Stages: st, Microbatches: c.m, MaxActivations: c.limit})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		tab := auto.Table
		if err := tab.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		limit := c.limit
		if limit == 0 {
			limit = c.p
		}
		if peak := slices.Max(sim.FixedPeakActivations(tab)); peak > limit {
			t.Errorf("%+v: peak %d activations above the limit %d", c, peak, limit)
		}
		lowered, err := pipeline.Lower(tab)
		if err != nil {
			t.Fatalf("%+v: lower: %v", c, err)
		}
		if _, err := pipeline.Lockstep(lowered); err != nil {
			t.Fatalf("%+v: lockstep: %v", c, err)
		}
		var buf bytes.Buffer
		if err := pipeline.WriteCSV(&buf, tab); err != nil {
			t.Fatal(err)
		}
		back, err := pipeline.ReadCSV(&buf, "zb-auto.csv")
		if err != nil {
			t.Fatalf("%+v: read back: %v", c, err)
		}
		if got := sim.Makespan(simulateTimes(t, back, st)); got != auto.Makespan {
			t.Errorf("%+v: the CSV read back takes %g, the table %g", c, got, auto.Makespan)
		}
	}
}

// The heuristic times each action as it places it; where no two
// transfers ever share a link (every transfer shorter than the computes
// between them), the event simulator must agree with it to the bit: an
// independent check of both timings.
func TestZBAutoHeuristicTimesAgreeWithSimulator(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		p := 2 + rng.IntN(6)
		m := p + rng.IntN(3*p)
		st := randomTimes(rng, p)
		for i := range st {
			st[i].Comm = min(st[i].Comm, st[i].TF, st[i].TB) / 2
		}
		for _, k := range allZBKnobs() {
			b := newZBBuilder(ZBAutoProblem{Stages: st, Microbatches: m, MaxActivations: 2 * p}, k)
			tab, err := b.build()
			if err != nil {
				t.Fatal(err)
			}
			if err := tab.Validate(); err != nil {
				t.Fatal(err)
			}
			if got, want := sim.Makespan(simulateTimes(t, tab, st)), slices.Max(b.free); got != want {
				t.Errorf("P %d M %d %v: simulated %g, heuristic's own time %g", p, m, k, got, want)
			}
		}
	}
}

// With T_F = T_B = T_W and free transfers ZB-H2 has no bubble at all
// (docs/reference.md §2: bubble (p-1)(T_F + T_B - 2T_W)); zb-auto with the
// limit 2P must not have one either, and with the limit P it matches
// ZB-H1's closed form, bubble (P-1)(T_F + T_B - T_W) = (P-1) steps per
// rank span of 3M + P - 1.
func TestZBAutoUnitTimesClosedForms(t *testing.T) {
	for _, c := range []struct{ p, m int }{{4, 8}, {4, 12}, {8, 24}} {
		st := uniformTimes(c.p, StageTimes{TF: 1, TB: 1, TW: 1})
		two, err := ZBAuto(ZBAutoProblem{Stages: st, Microbatches: c.m, MaxActivations: 2 * c.p})
		if err != nil {
			t.Fatal(err)
		}
		if r := sim.BubbleRatio(simulateTimes(t, two.Table, st)); r != 0 {
			t.Errorf("P %d M %d limit 2P: bubble rate %g, want 0 (ZB-H2's)", c.p, c.m, r)
		}
		one, err := ZBAuto(ZBAutoProblem{Stages: st, Microbatches: c.m})
		if err != nil {
			t.Fatal(err)
		}
		span := float64(3*c.m + c.p - 1)
		if r, want := sim.BubbleRatio(simulateTimes(t, one.Table, st)), float64(c.p-1)/span; math.Abs(r-want) > 1e-12 {
			t.Errorf("P %d M %d limit P: bubble rate %g, want ZB-H1's %g", c.p, c.m, r, want)
		}
	}
}

func TestZBAutoRefusesBadProblems(t *testing.T) {
	good := uniformTimes(2, StageTimes{TF: 1, TB: 1, TW: 1})
	bad := uniformTimes(2, StageTimes{TF: 1, TB: 1, TW: 1})
	bad[1].TW = -1
	for _, p := range []ZBAutoProblem{
		{Microbatches: 2},
		{Stages: good},
		{Stages: good, Microbatches: 2, MaxActivations: -1},
		{Stages: bad, Microbatches: 2},
		{Stages: []StageTimes{{TF: math.NaN(), TB: 1}}, Microbatches: 1},
	} {
		if _, err := ZBAuto(p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// ZBAuto keeps the candidate with the shortest makespan, or with BySpan
// the shortest longest rank span (the Zero Bubble paper's own cost): the
// winner's figure is the least over the candidates it timed, on the
// paper's two Appendix D profiles under its ZB-2p limit. On 1.5B the two
// rules choose different schedules (the makespans differ by 0.1 ms, the
// spans by 1.5 ms).
func TestZBAutoBySpan(t *testing.T) {
	for _, c := range []struct {
		name        string
		st          StageTimes
		p, m, limit int
	}{
		{"1.5B", StageTimes{TF: 18.522, TB: 18.086, TW: 9.337, Comm: 0.601}, 8, 24, 16},
		{"28.3B", StageTimes{TF: 10.419, TB: 10.207, TW: 7.715, Comm: 0.408}, 32, 96, 64},
	} {
		var won [2]ZBAutoCandidate
		for i, bySpan := range []bool{false, true} {
			a, err := ZBAuto(ZBAutoProblem{Stages: uniformTimes(c.p, c.st), Microbatches: c.m, MaxActivations: c.limit, WeightGradShare: 0.5, BySpan: bySpan})
			if err != nil {
				t.Fatal(err)
			}
			least := [2]float64{math.Inf(1), math.Inf(1)}
			for _, x := range a.Candidates {
				least[0], least[1] = min(least[0], x.Makespan), min(least[1], x.LongestSpan)
				if x.Source == a.Source {
					won[i] = x
				}
			}
			got, want := won[i].Makespan, least[0]
			if bySpan {
				got, want = won[i].LongestSpan, least[1]
			}
			if got > want*(1+1e-9) {
				t.Errorf("%s, by span %v: %s wins at %g, the least is %g", c.name, bySpan, a.Source, got, want)
			}
		}
		if c.name == "1.5B" && won[0].Source == won[1].Source {
			t.Errorf("1.5B: both rules choose %s", won[0].Source)
		}
	}
}
