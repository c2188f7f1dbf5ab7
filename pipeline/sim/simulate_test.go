package sim

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

func generate(t *testing.T, family string, sh pipeline.Shape) *pipeline.Table {
	t.Helper()
	tb, err := pipeline.Generate(family, sh)
	if err != nil {
		t.Fatalf("generate %s %+v: %v", family, sh, err)
	}
	return tb
}

// presetConfig is the GPU timing model of the named presets for
// microbatches of one 2048-token sample.
func presetConfig(t *testing.T, model, gpu, link string) cost.GPUConfig {
	t.Helper()
	m, err := cost.LookupNetwork(model)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cost.LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	l, err := cost.LookupLink(link)
	if err != nil {
		t.Fatal(err)
	}
	return cost.GPUConfig{Network: m, GPU: g, Link: l, Microbatch: 1, Sequence: 2048}
}

func simulateOK(t *testing.T, tb *pipeline.Table, cost cost.Model, opt Options) *Timeline {
	t.Helper()
	tl, err := Simulate(tb, cost, opt)
	if err != nil {
		t.Fatalf("simulate %s: %v", tb.Family, err)
	}
	return tl
}

// computeEvents drops the transfer events of a timeline.
func computeEvents(tl *Timeline) []Event {
	return slices.DeleteFunc(slices.Clone(tl.Events), func(e Event) bool { return e.Action.Kind.IsComm() })
}

// rankSpans returns each rank's span, first compute start to last end.
func longestSpan(tl *Timeline) float64 {
	var longest float64
	for _, evs := range rankEvents(tl) {
		if len(evs) > 0 {
			longest = max(longest, evs[len(evs)-1].End-evs[0].Start)
		}
	}
	return longest
}

// GPipe and 1F1B take (M + P - 1)(T_F + T_B) with uniform stages and free
// communication (docs/reference.md §2); 1F1B holds P - r activations on rank r
// and GPipe all M (both capped by M).
func TestSimulateGPipeAnd1F1BClosedForm(t *testing.T) {
	costs := []cost.Explicit{{TF: 1, TB: 1}, {TF: 1, TB: 2}, {TF: 2, TB: 3}, {TF: 1, TB: 1, TW: 1}}
	for _, family := range []string{"gpipe", "1f1b"} {
		for _, p := range []int{1, 2, 3, 4, 8} {
			for _, m := range []int{1, 2, 3, 4, 8, 16} {
				tb := generate(t, family, pipeline.Shape{Ranks: p, Microbatches: m})
				for _, c := range costs {
					tl := simulateOK(t, tb, c, Options{})
					want := float64(m+p-1) * (c.TF + c.TB + c.TW)
					if got := Makespan(tl); got != want {
						t.Errorf("%s P=%d M=%d %+v: makespan %v, want (M+P-1)(T_F+T_B) = %v", family, p, m, c, got, want)
					}
					peaks := PeakActivations(tl)
					for r, got := range peaks {
						want := min(p-r, m)
						if family == "gpipe" {
							want = m
						}
						if got != want {
							t.Errorf("%s P=%d M=%d: rank %d peak activations %d, want %d", family, p, m, r, got, want)
						}
					}
				}
			}
		}
	}
}

// Interleaved 1F1B with V chunks per rank idles (P - 1)(T_F + T_B)/V,
// T_F and T_B being a whole rank's times (docs/reference.md §2): with per-chunk
// times t_f, t_b the rank's share is V·t_f, V·t_b, so the makespan is
// M·V(t_f + t_b) + (P - 1)(t_f + t_b).
func TestSimulateInterleavedBubble(t *testing.T) {
	for _, sh := range []pipeline.Shape{
		{Ranks: 2, Microbatches: 4, Chunks: 2}, {Ranks: 4, Microbatches: 8, Chunks: 2},
		{Ranks: 4, Microbatches: 16, Chunks: 3}, {Ranks: 8, Microbatches: 16, Chunks: 2},
	} {
		tb := generate(t, "interleaved-1f1b", sh)
		for _, c := range []cost.Explicit{{TF: 1, TB: 1}, {TF: 1, TB: 2}} {
			tl := simulateOK(t, tb, c, Options{})
			v := float64(sh.Chunks)
			rankF, rankB := v*c.TF, v*c.TB
			bubble := Makespan(tl) - float64(sh.Microbatches)*(rankF+rankB)
			if want := float64(sh.Ranks-1) * (rankF + rankB) / v; bubble != want {
				t.Errorf("%+v %+v: bubble %v, want (P-1)(T_F+T_B)/V = %v", sh, c, bubble, want)
			}
		}
	}
}

// The Zero Bubble paper (arXiv 2401.10241, docs/reference.md §2): ZB-H1 idles
// (P - 1)(T_F + T_B - T_W) per rank and holds P activations, ZB-H2 idles
// (P - 1)(T_F + T_B - 2T_W) and holds 2P - 1. A rank's bubble is its span
// minus its work M(T_F + T_B + T_W), on the rank with the longest span, as
// the paper measures it.
func TestSimulateZeroBubbleH1H2(t *testing.T) {
	cases := []struct {
		family string
		bubble func(p float64, c cost.Explicit) float64
		peak   func(p int) int
	}{
		{"zb-h1", func(p float64, c cost.Explicit) float64 { return (p - 1) * (c.TF + c.TB - c.TW) }, func(p int) int { return p }},
		{"zb-h2", func(p float64, c cost.Explicit) float64 { return (p - 1) * (c.TF + c.TB - 2*c.TW) }, func(p int) int { return 2*p - 1 }},
	}
	for _, tc := range cases {
		for _, sh := range []pipeline.Shape{{Ranks: 2, Microbatches: 8}, {Ranks: 4, Microbatches: 8}, {Ranks: 4, Microbatches: 16}, {Ranks: 8, Microbatches: 24}} {
			tb := generate(t, tc.family, sh)
			for _, c := range []cost.Explicit{{TF: 1, TB: 1, TW: 1}, {TF: 1, TB: 2, TW: 1}} {
				tl := simulateOK(t, tb, c, Options{})
				work := float64(sh.Microbatches) * (c.TF + c.TB + c.TW)
				if got, want := longestSpan(tl)-work, tc.bubble(float64(sh.Ranks), c); got != want {
					t.Errorf("%s %+v %+v: bubble %v, want %v", tc.family, sh, c, got, want)
				}
				if got, want := slices.Max(PeakActivations(tl)), tc.peak(sh.Ranks); got != want {
					t.Errorf("%s %+v: peak activations %d, want %d", tc.family, sh, got, want)
				}
			}
		}
	}
}

// Asynchronous PipeDream in unit time takes 2N + 2S - 2 steps (docs/reference.md
// §1.2, measured on the reference code), and its generator places every
// action in the step it runs, so the simulated timeline is the grid's.
func TestSimulatePipeDreamIsItsGrid(t *testing.T) {
	for _, sh := range []pipeline.Shape{{Ranks: 2, Microbatches: 5}, {Ranks: 4, Microbatches: 12}, {Ranks: 8, Microbatches: 3}} {
		tb := generate(t, "pipedream", sh)
		tl := simulateOK(t, tb, cost.Unit{}, Options{})
		if got, want := Makespan(tl), float64(2*sh.Microbatches+2*sh.Ranks-2); got != want {
			t.Errorf("pipedream %+v: makespan %v, want 2N+2S-2 = %v", sh, got, want)
		}
		for _, e := range tl.Events {
			if e.Action.Kind.IsComm() && e.End != e.Start {
				t.Errorf("pipedream %+v: unit-cost transfer %s takes %v", sh, e.Action, e.End-e.Start)
			}
		}
		if got, want := computeEvents(tl), FromGrid(tb).Events; !slices.Equal(got, want) {
			t.Errorf("pipedream %+v: simulated compute events differ from FromGrid", sh)
		}
	}
}

// GPipe's fill sends each activation down P - 1 hops and its drain each
// gradient back up P - 1: with hop cost c no larger than T_F and T_B, every
// other transfer overlaps the next microbatch's compute, so the makespan
// grows by exactly 2(P - 1)c, whatever M.
func TestSimulateFillAndDrainGrowWithHopLatency(t *testing.T) {
	for _, p := range []int{2, 4, 8} {
		for _, m := range []int{1, 4, 16} {
			tb := generate(t, "gpipe", pipeline.Shape{Ranks: p, Microbatches: m})
			base := Makespan(simulateOK(t, tb, cost.Explicit{TF: 1, TB: 2}, Options{}))
			for _, c := range []float64{0.25, 0.5, 1} {
				got := Makespan(simulateOK(t, tb, cost.Explicit{TF: 1, TB: 2, Comm: c}, Options{})) - base
				if want := 2 * float64(p-1) * c; got != want {
					t.Errorf("gpipe P=%d M=%d c=%v: makespan grows by %v, want 2(P-1)c = %v", p, m, c, got, want)
				}
			}
		}
	}
}

// 1F1B runs in strict row order, so its steady state is exposed to the
// hops too. For a small hop cost c the makespan grows by c times the most
// hops on a critical path of the free-communication schedule. Rank 0 holds
// P microbatches, so F(j + P) on rank 0 waits for B(j) to come back: once
// every P microbatches a round trip of 2(P - 1) hops lies on the critical
// path; the first microbatches add a bounce at rank 1 (F(0) down and B(0)
// up to rank 1, then F(P - 1) down and B(P - 1) up to rank 0), 2(P - 2)
// hops more. For P dividing M: growth 2c((P - 1)M/P + P - 2).
//
// c = 1/256 is small enough: integer costs give a non-critical path at
// least 1 of slack, and no path has more than 2(P - 1)M < 256 hops.
func TestSimulate1F1BSteadyStateHops(t *testing.T) {
	const c = 1.0 / 256
	for _, pm := range [][2]int{{2, 2}, {2, 8}, {3, 6}, {4, 4}, {4, 16}, {8, 8}, {8, 16}} {
		p, m := pm[0], pm[1]
		tb := generate(t, "1f1b", pipeline.Shape{Ranks: p, Microbatches: m})
		for _, tbw := range []float64{1, 2} {
			base := Makespan(simulateOK(t, tb, cost.Explicit{TF: 1, TB: tbw}, Options{}))
			got := Makespan(simulateOK(t, tb, cost.Explicit{TF: 1, TB: tbw, Comm: c}, Options{})) - base
			want := 2 * c * (float64((p-1)*m/p) + float64(p-2))
			if got != want {
				t.Errorf("1f1b P=%d M=%d T_B=%v: makespan grows by %v·c, want 2((P-1)M/P + P-2) = %v", p, m, tbw, got/c, want/c)
			}
		}
	}
}

// vOrLoop builds one microbatch going down 2P stages and back, each rank
// running its stages' forwards in stage order and then their backwards in
// reverse, on the given placement.
func vOrLoop(p int, placement []int) *pipeline.Table {
	tb := &pipeline.Table{Rows: make([][]pipeline.Action, p), Placement: placement, Microbatches: 1}
	for s, r := range placement {
		tb.Rows[r] = append(tb.Rows[r], pipeline.F(s, 0))
	}
	for s := len(placement) - 1; s >= 0; s-- {
		r := placement[s]
		tb.Rows[r] = append(tb.Rows[r], pipeline.B(s, 0))
	}
	return tb
}

// One microbatch through 2P stages crosses every stage boundary twice. The
// loop placement puts all 2P - 1 boundaries between ranks; the V placement
// keeps stages P - 1 and P on rank P - 1, so it saves two hops: its
// makespan is 2c shorter and it sends 2 messages fewer.
func TestSimulateVPlacementSavesColocatedHops(t *testing.T) {
	const tf, tbw, c = 1.0, 2.0, 0.5
	for _, p := range []int{2, 3, 4} {
		cost := cost.Explicit{TF: tf, TB: tbw, Comm: c}
		loop := simulateOK(t, vOrLoop(p, pipeline.LoopPlacement(2*p, p)), cost, Options{})
		v := simulateOK(t, vOrLoop(p, pipeline.VPlacement(2*p, p)), cost, Options{})
		work := float64(2*p) * (tf + tbw)
		if got, want := Makespan(loop), work+float64(2*(2*p-1))*c; got != want {
			t.Errorf("P=%d loop: makespan %v, want 2P(T_F+T_B) + 2(2P-1)c = %v", p, got, want)
		}
		if got, want := Makespan(v), work+float64(2*(2*p-2))*c; got != want {
			t.Errorf("P=%d V: makespan %v, want 2P(T_F+T_B) + 2(2P-2)c = %v", p, got, want)
		}
		if got, want := Communication(loop, nil).Messages-Communication(v, nil).Messages, 2; got != want {
			t.Errorf("P=%d: V sends %d messages fewer, want %d", p, got, want)
		}
	}
}

// A transfer overlaps the compute after it on the sending rank. In GPipe
// with c ≤ T_F, T_B all but the fill and drain transfers are hidden (the
// previous test); with c ≥ T_F, T_B the links are the bottleneck: activation
// j leaves rank r at (r + 1)T_F + (j + r)c, by induction on r and j (a link
// carries one message at a time), and the backward mirrors it, so the
// makespan is P(T_F + T_B) + 2(M + P - 2)c and every microbatch pays c.
func TestSimulateOverlapHidesShortTransfers(t *testing.T) {
	const tf, tbw = 1.0, 1.0
	for _, p := range []int{2, 4} {
		for _, m := range []int{1, 4, 8} {
			tb := generate(t, "gpipe", pipeline.Shape{Ranks: p, Microbatches: m})
			hidden := simulateOK(t, tb, cost.Explicit{TF: tf, TB: tbw, Comm: 0.5}, Options{})
			if got, want := Makespan(hidden), float64(m+p-1)*(tf+tbw)+2*float64(p-1)*0.5; got != want {
				t.Errorf("gpipe P=%d M=%d c=0.5: makespan %v, want %v", p, m, got, want)
			}
			for _, c := range []float64{1, 2, 3} {
				exposed := simulateOK(t, tb, cost.Explicit{TF: tf, TB: tbw, Comm: c}, Options{})
				if got, want := Makespan(exposed), float64(p)*(tf+tbw)+2*float64(m+p-2)*c; got != want {
					t.Errorf("gpipe P=%d M=%d c=%v: makespan %v, want P(T_F+T_B) + 2(M+P-2)c = %v", p, m, c, got, want)
				}
			}
		}
	}
}

// A table with explicit SEND/RECV is timed as written. PyTorch's two-rank
// lowering (docs/reference.md §3) posts every RECV before its consumer, so with
// T_F = T_B = 1 and c = 1 it times like the compute-only table: F0 [0,1]
// on rank 0, sent [1,2]; F1 [1,2], sent [2,3]; rank 1 runs F0 [2,3], B0
// [3,4], sends B0 [4,5], F1 [4,5], B1 [5,6], sends B1 [6,7]; rank 0 runs B0
// [5,6] and B1 [7,8]: makespan 8. Posting 1RECV_F1 after 1SEND_B0 holds
// that transfer until rank 1 has sent B0 at 4, so F1 runs [5,6], B1 [6,7],
// its gradient arrives at 8 and B1 on rank 0 ends at 9.
func TestSimulateExplicitCommsAsWritten(t *testing.T) {
	act := func(s string) pipeline.Action {
		a, err := pipeline.ParseAction(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	row := func(cells ...string) []pipeline.Action {
		out := make([]pipeline.Action, len(cells))
		for i, c := range cells {
			out[i] = act(c)
		}
		return out
	}
	lowered := &pipeline.Table{Placement: []int{0, 1}, Microbatches: 2, Rows: [][]pipeline.Action{
		row("0F0", "0SEND_F0", "0F1", "0SEND_F1", "0RECV_B0", "0B0", "0RECV_B1", "0B1"),
		row("1RECV_F0", "1RECV_F1", "1F0", "1B0", "1SEND_B0", "1F1", "1B1", "1SEND_B1"),
	}}
	late := lowered.Clone()
	late.Rows[1] = row("1RECV_F0", "1F0", "1B0", "1SEND_B0", "1RECV_F1", "1F1", "1B1", "1SEND_B1")
	compute := &pipeline.Table{Placement: []int{0, 1}, Microbatches: 2, Rows: [][]pipeline.Action{
		row("0F0", "0F1", "0B0", "0B1"), row("1F0", "1B0", "1F1", "1B1"),
	}}
	cost := cost.Explicit{TF: 1, TB: 1, Comm: 1}
	for _, tc := range []struct {
		name string
		tb   *pipeline.Table
		want float64
	}{{"compute only", compute, 8}, {"lowered", lowered, 8}, {"late RECV", late, 9}} {
		if got := Makespan(simulateOK(t, tc.tb, cost, Options{})); got != tc.want {
			t.Errorf("%s: makespan %v, want %v", tc.name, got, tc.want)
		}
	}
}

// With free transfers, a lowered table times exactly as the compute-only
// one, since PyTorch's lowering posts every RECV before its consumer. The
// fixture is PyTorch's interleaved zero-bubble schedule before and after
// lowering (docs/reference.md §3; the comms file merged adjacent I, W into B).
func TestSimulateLoweredFixtureMatchesCompute(t *testing.T) {
	read := func(name string) *pipeline.Table {
		f, err := os.Open(filepath.Join("..", "testdata", "torch", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tb, err := pipeline.ReadCSV(f, name)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	compute := pipeline.MergeIW(read("zb1p_2rank_2stagep_compute.csv"))
	comms := read("zb1p_2rank_2stagep_comms.csv")
	for _, c := range []cost.Model{cost.Unit{}, cost.Explicit{TF: 1, TB: 2, TW: 1}} {
		want := computeEvents(simulateOK(t, compute, c, Options{}))
		got := computeEvents(simulateOK(t, comms, c, Options{}))
		if len(got) != len(want) {
			t.Fatalf("%+v: %d compute events, want %d", c, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Rank != w.Rank || g.Action != w.Action || g.Start != w.Start || g.End != w.End {
				t.Fatalf("%+v: event %d is %+v, want %+v", c, i, g, w)
			}
		}
	}
}

// Two ranks that each run first what the other produces last wait on each
// other forever: rank 0 runs B0 before F1, rank 1 runs microbatch 1 first.
func TestSimulateDeadlockNamesTheCycle(t *testing.T) {
	tb := &pipeline.Table{Placement: []int{0, 1}, Microbatches: 2, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.B(0, 0), pipeline.F(0, 1), pipeline.B(0, 1)},
		{pipeline.F(1, 1), pipeline.B(1, 1), pipeline.F(1, 0), pipeline.B(1, 0)},
	}}
	_, err := Simulate(tb, cost.Unit{}, Options{})
	if !errors.Is(err, pipeline.ErrDeadlock) {
		t.Fatalf("err = %v, want a deadlock", err)
	}
	var de *DeadlockError
	if !errors.As(err, &de) || !de.Cycle {
		t.Fatalf("err = %v, want a *DeadlockError with a cycle", err)
	}
	want := []Wait{
		{Rank: 0, Index: 1, Action: pipeline.B(0, 0), WaitsFor: pipeline.B(1, 0), On: 1},
		{Rank: 1, Index: 0, Action: pipeline.F(1, 1), WaitsFor: pipeline.F(0, 1), On: 0},
	}
	if !slices.Equal(de.Waits, want) {
		t.Errorf("waits %+v, want %+v", de.Waits, want)
	}
	if de.Time != 1 {
		t.Errorf("deadlock at time %v, want 1 (after F0 on rank 0)", de.Time)
	}
}

// A lowered table that lacks a SEND leaves its RECV waiting for a message
// nobody sends: a deadlock without a cycle, naming the missing action.
func TestSimulateMissingSend(t *testing.T) {
	tb := &pipeline.Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.Act(pipeline.RecvB, 0, 0), pipeline.B(0, 0)},
		{pipeline.Act(pipeline.RecvF, 1, 0), pipeline.F(1, 0), pipeline.B(1, 0), pipeline.Act(pipeline.SendB, 1, 0)},
	}}
	_, err := Simulate(tb, cost.Unit{}, Options{})
	var de *DeadlockError
	if !errors.As(err, &de) || de.Cycle {
		t.Fatalf("err = %v, want a deadlock without a cycle", err)
	}
	want := Wait{Rank: 1, Index: 1, Action: pipeline.F(1, 0), WaitsFor: pipeline.Act(pipeline.SendF, 0, 0), On: -1}
	if !slices.Contains(de.Waits, want) {
		t.Errorf("waits %v, want one to be %v", de.Waits, want)
	}
}

// Bad input is an error naming what is wrong, never a panic.
func TestSimulateRejects(t *testing.T) {
	good := &pipeline.Table{Placement: []int{0, 1}, Microbatches: 1, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.B(0, 0)}, {pipeline.F(1, 0), pipeline.B(1, 0)},
	}}
	sendSameRank := &pipeline.Table{Placement: []int{0, 0}, Microbatches: 1, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.Act(pipeline.SendF, 0, 0), pipeline.F(1, 0), pipeline.B(1, 0), pipeline.B(0, 0)},
	}}
	nan := cost.Explicit{TF: math.NaN(), TB: 1}
	for _, tc := range []struct {
		name string
		tb   *pipeline.Table
		cost cost.Model
		opt  Options
	}{
		{"nil cost", good, nil, Options{}},
		{"invalid table", &pipeline.Table{Placement: []int{0}, Microbatches: 1, Rows: [][]pipeline.Action{{pipeline.B(0, 0)}}}, cost.Unit{}, Options{}},
		{"send on one rank", sendSameRank, cost.Unit{}, Options{}},
		{"NaN cost", good, nan, Options{}},
		{"negative cap", good, cost.Unit{}, Options{Policy: Ready, ActivationCap: -1}},
		{"negative sigma", good, cost.Unit{}, Options{Variability: Variability{Sigma: -1}}},
		{"straggler off the table", good, cost.Unit{}, Options{Variability: Variability{Stragglers: map[int]float64{2: 2}}}},
		{"zero straggler", good, cost.Unit{}, Options{Variability: Variability{Stragglers: map[int]float64{1: 0}}}},
		{"unknown policy", good, cost.Unit{}, Options{Policy: Policy(9)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Simulate(tc.tb, tc.cost, tc.opt); err == nil {
				t.Errorf("Simulate accepted it")
			} else {
				t.Log(err)
			}
		})
	}
}
