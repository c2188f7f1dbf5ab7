package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// allFamilies generates every registered family at a shape it accepts.
func allFamilies(t *testing.T) []*pipeline.Table {
	t.Helper()
	var out []*pipeline.Table
	for _, f := range pipeline.Families() {
		sh := pipeline.Shape{Ranks: 4, Microbatches: 8}
		if f.Name == "localsgd" {
			sh.LocalSteps = 2
		}
		out = append(out, generate(t, f.Name, sh))
	}
	return out
}

// Without variability, Ready with the table hint waits for each row's next
// action as long as the fixed order does, so it runs every table exactly as
// Fixed does: every event, compute and transfer, at the same time, on every
// family and shape the generators accept, under unit, integer, uneven,
// communicating and GPU-model costs. The comparison is exact because both
// runs add the same durations in the same order.
func TestPolicyReadyTableReproducesFixed(t *testing.T) {
	cfg := presetConfig(t, "vlm-7b", "h100", "ib-ndr")
	runs := 0
	for _, f := range pipeline.Families() {
		for ranks := 1; ranks <= 5; ranks++ {
			for _, mbs := range []int{1, 2, 3, 5, 8, 12} {
				sh := pipeline.Shape{Ranks: ranks, Microbatches: mbs}
				if f.Name == "localsgd" {
					sh.LocalSteps = 2
				}
				tb, err := pipeline.Generate(f.Name, sh)
				if err != nil {
					continue // a shape the family refuses (tested in pipeline)
				}
				uneven := cost.Explicit{Comm: 0.5, Stages: make([]cost.Stage, tb.Stages())}
				for s := range uneven.Stages {
					uneven.Stages[s] = cost.Stage{TF: float64(1 + s%3), TB: float64(2 + s%2), TW: 1}
				}
				g, err := cost.NewGPUModel(cfg, tb.Stages())
				if err != nil {
					t.Fatal(err)
				}
				for _, cost := range []cost.Model{cost.Unit{}, cost.Explicit{TF: 1, TB: 1, TW: 1}, cost.Explicit{TF: 1, TB: 2, TW: 1, Comm: 1}, uneven, g} {
					fixed := simulateOK(t, tb, cost, Options{})
					ready := simulateOK(t, tb, cost, Options{Policy: Ready, Hint: TableOrder})
					runs++
					if i := firstDifference(fixed.Events, ready.Events); i >= 0 {
						t.Errorf("%s P=%d M=%d %T: event %d: fixed %+v, ready %+v", f.Name, ranks, mbs, cost, i, at(fixed.Events, i), at(ready.Events, i))
					}
				}
			}
		}
	}
	if runs < 500 {
		t.Errorf("only %d comparisons ran", runs)
	}
}

func firstDifference(a, b []Event) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

func at(evs []Event, i int) any {
	if i < len(evs) {
		return evs[i]
	}
	return "none"
}

// A lowered table fixes where every SEND and RECV is posted; the Ready
// policy lets transfers follow the data instead. With free communication
// the two coincide, so Ready with the table hint gives the lowered table's
// fixed compute timeline exactly.
func TestPolicyReadyTableReproducesFixedLowered(t *testing.T) {
	for _, tb := range allFamilies(t) {
		if tb.Update != pipeline.Flush {
			continue
		}
		lowered, err := pipeline.Lower(tb)
		if err != nil {
			t.Fatalf("lower %s: %v", tb.Family, err)
		}
		cost := cost.Explicit{TF: 1, TB: 2, TW: 1}
		fixed := computeEvents(simulateOK(t, lowered, cost, Options{}))
		ready := computeEvents(simulateOK(t, lowered, cost, Options{Policy: Ready}))
		if i := firstDifference(fixed, ready); i >= 0 {
			t.Errorf("%s lowered: event %d: fixed %+v, ready %+v", tb.Family, i, at(fixed, i), at(ready, i))
		}
	}
}

// The wait as planned, worked by hand in the unit-time model: ZB-H1 with
// P = 4, M = 8 and rank 3 at twice the time. Rank 1 runs F0, F1, F2 in
// steps 1-3 and its row puts I0 next; the plan (no straggler) starts I0 at
// 6, when rank 3's I0 (4-5) and rank 2's (5-6) are done, so the planned gap
// is 3 steps. With the straggler, rank 3 runs F0 in 3-5 and I0 in 5-7,
// rank 2 its I0 in 7-8, and rank 1's I0 can start at 8. F3 reaches rank 1
// at 4 (rank 0 runs F0-F3 in 0-4), and rank 1 may hold P = 4 activations.
// So:
//   - fixed waits for I0 (8-9) and runs F3 at 9;
//   - ready without patience runs F3 as soon as it arrives, at 4;
//   - ready as planned waits the planned 3 steps, finds I0 still missing at
//     6, and runs F3 then.
func TestPolicyReadyWaitsAsPlanned(t *testing.T) {
	tb := generate(t, "zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8})
	slow := Variability{Stragglers: map[int]float64{3: 2}}
	for _, tc := range []struct {
		opt  Options
		want float64
	}{
		{Options{Variability: slow}, 9},
		{Options{Policy: Ready, Patience: NoWait, Variability: slow}, 4},
		{Options{Policy: Ready, Variability: slow}, 6},
	} {
		tl := simulateOK(t, tb, cost.Unit{}, tc.opt)
		i := slices.IndexFunc(tl.Events, func(e Event) bool { return e.Rank == 1 && e.Action == pipeline.F(1, 3) })
		if i < 0 {
			t.Fatalf("%v/%v: rank 1 never runs F3", tc.opt.Policy, tc.opt.Patience)
		}
		if got := tl.Events[i].Start; got != tc.want {
			t.Errorf("%v, patience %v: rank 1 starts F3 at %v, want %v", tc.opt.Policy, tc.opt.Patience, got, tc.want)
		}
	}
}

// A plan is the fixed order's run; where that deadlocks, waiting as planned
// cannot be defined and the error says so, while NoWait still runs.
func TestPolicyReadyPlanDeadlock(t *testing.T) {
	// Rank 1 runs F1 before B0, rank 0 B0 before F1: in row order each
	// waits for the other forever. Ranked by readiness, rank 1 runs B0
	// while F1 is missing, and everything runs.
	tb := &pipeline.Table{Family: "custom", Microbatches: 2, Placement: []int{0, 1}, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.B(0, 0), pipeline.F(0, 1), pipeline.B(0, 1)},
		{pipeline.F(1, 0), pipeline.F(1, 1), pipeline.B(1, 0), pipeline.B(1, 1)},
	}}
	if _, err := Simulate(tb, cost.Unit{}, Options{}); !errors.Is(err, pipeline.ErrDeadlock) {
		t.Fatalf("fixed: err = %v, want a deadlock", err)
	}
	_, err := Simulate(tb, cost.Unit{}, Options{Policy: Ready})
	if !errors.Is(err, pipeline.ErrDeadlock) || !strings.Contains(err.Error(), "patience plan") {
		t.Errorf("err = %v, want the plan's deadlock", err)
	}
	if _, err := Simulate(tb, cost.Unit{}, Options{Policy: Ready, Patience: NoWait}); err != nil {
		t.Errorf("NoWait: %v", err)
	}
}

// Without patience (NoWait, as RRFP), Ready with the table hint runs a
// table exactly as Fixed does, without variability, if and only if the
// fixed run never leaves a rank idle while the next action of one of its
// queues (the first forward, backward or weight gradient not yet started)
// has its inputs and, for a forward, the rank is below its cap: at every
// other free moment the row's next action is the only candidate, or the
// best-ranked one. The check below reads that condition off the fixed
// timeline independently of the simulator's queues. Some generated grids
// do idle so (Megatron's interleaved order alternates F and B strictly;
// ZB-H1 keeps warm-up bubbles the cap does not require); there NoWait runs
// the waiting action.
func TestPolicyReadyNoWaitReproducesFixedIff(t *testing.T) {
	same := map[string]bool{}
	for _, tb := range allFamilies(t) {
		for _, cost := range []cost.Model{cost.Unit{}, cost.Explicit{TF: 1, TB: 1, TW: 1}, cost.Explicit{TF: 1, TB: 2, TW: 1}} {
			fixed := simulateOK(t, tb, cost, Options{})
			ready := simulateOK(t, tb, cost, Options{Policy: Ready, Hint: TableOrder, Patience: NoWait})
			equal := slices.Equal(fixed.Events, ready.Events)
			where, idle := idleWithReadyWork(tb, fixed)
			if equal == idle {
				t.Errorf("%s %+v: ready+table equal to fixed: %v; fixed idles with ready work: %v %s", tb.Family, cost, equal, idle, where)
			}
			if _, seen := same[tb.Family]; !seen || !equal {
				same[tb.Family] = equal
			}
		}
	}
	for _, family := range []string{"gpipe", "1f1b", "pipedream"} {
		if !same[family] {
			t.Errorf("%s: ready+table should reproduce fixed", family)
		}
	}
	for _, family := range []string{"zb-h1", "interleaved-zb"} {
		if same[family] {
			t.Errorf("%s: its warm-up idles with a forward ready, so NoWait should reorder it", family)
		}
	}
	t.Logf("NoWait reproduces fixed for every cost: %v", same)
}

// idleWithReadyWork finds the first idle gap of a free-communication fixed
// run during which a queue head other than the row's next action could run.
func idleWithReadyWork(tb *pipeline.Table, tl *Timeline) (string, bool) {
	end := map[pipeline.Action]float64{}
	for _, e := range tl.Events {
		for _, sub := range singleActions(e.Action) {
			end[sub] = e.End
		}
	}
	inputsAt := func(a pipeline.Action) float64 {
		rt := tb.RouteOf(a.Microbatch)
		at := 0.0
		switch a.Kind {
		case pipeline.Forward:
			if a.Stage > rt.First {
				at = end[pipeline.F(a.Stage-1, a.Microbatch)]
			}
		case pipeline.Backward, pipeline.BackwardInput:
			at = end[pipeline.F(a.Stage, a.Microbatch)]
			if a.Stage < rt.Last {
				next := max(end[pipeline.B(a.Stage+1, a.Microbatch)], end[pipeline.I(a.Stage+1, a.Microbatch)])
				at = max(at, next)
			}
		case pipeline.BackwardWeight:
			at = end[pipeline.I(a.Stage, a.Microbatch)]
		}
		return at
	}
	caps := FixedPeakActivations(tb)
	rule := newActivationRule(tb)
	for r, evs := range rankEvents(tl) {
		row := slices.DeleteFunc(slices.Clone(tb.Rows[r]), func(a pipeline.Action) bool { return !a.Kind.IsCompute() })
		free, held := 0.0, 0
		for k, e := range evs {
			if e.Start > free {
				for q := queueF; q < queueInPlace; q++ {
					// The queue's head is its first action not started
					// yet; the row's next action itself is no alternative.
					i := slices.IndexFunc(row[k:], func(a pipeline.Action) bool { return queueOf(a.Kind) == q })
					if i <= 0 || (q == queueF && held >= caps[r]) {
						continue
					}
					if a := row[k+i]; max(free, inputsAt(a)) < e.Start {
						return fmt.Sprintf("rank %d idles before %s at %v while %s could run", r, e.Action, e.Start, a), true
					}
				}
			}
			free = e.End
			held += rule.delta(e.Action)
		}
	}
	return "", false
}

// Under Ready no rank ever holds more activations than its cap, whatever
// the noise, the hint and the cap.
func TestPolicyReadyRespectsCap(t *testing.T) {
	for _, tb := range allFamilies(t) {
		caps := FixedPeakActivations(tb)
		for _, hint := range []Hint{TableOrder, BackwardFirst, InputForwardWeight} {
			for seed := range uint64(4) {
				opt := Options{Policy: Ready, Hint: hint, Patience: Patience(seed % 2), Variability: Variability{Seed: seed, Sigma: 0.5, CommSigma: 0.5}}
				tl := simulateOK(t, tb, cost.Explicit{TF: 1, TB: 2, TW: 1, Comm: 0.5}, opt)
				for r, got := range PeakActivations(tl) {
					if got > caps[r] {
						t.Errorf("%s hint %v seed %d: rank %d holds %d activations, cap %d", tb.Family, hint, seed, r, got, caps[r])
					}
				}
			}
		}
	}
}

// Lowered tables fix the order of every SEND and RECV; under Ready ranks run
// their computes in other orders, so a matched-in-order runtime could
// deadlock. Transfers are matched by stage and microbatch instead, so no
// seed, hint or noise level deadlocks any lowered family.
func TestPolicyReadyNeverDeadlocksOnLoweredTables(t *testing.T) {
	for _, tb := range allFamilies(t) {
		if tb.Update != pipeline.Flush {
			continue // asynchronous tables are not PyTorch schedules
		}
		lowered, err := pipeline.Lower(tb)
		if err != nil {
			t.Fatalf("lower %s: %v", tb.Family, err)
		}
		for _, hint := range []Hint{TableOrder, BackwardFirst, InputForwardWeight} {
			for seed := range uint64(5) {
				opt := Options{Policy: Ready, Hint: hint, Patience: Patience(seed % 2), Variability: Variability{
					Seed: seed, Sigma: 1, CommSigma: 1, Stragglers: map[int]float64{int(seed) % tb.Ranks(): 3},
				}}
				if _, err := Simulate(lowered, cost.Explicit{TF: 1, TB: 1, TW: 1, Comm: 2}, opt); err != nil {
					t.Errorf("%s hint %v seed %d: %v", tb.Family, hint, seed, err)
				}
			}
		}
	}
}

// A cap below the fixed order's peak can deadlock, and the error says so:
// interleaved 1F1B with cap 1 lets rank 0 start chunk 0 of microbatch 0,
// whose backward needs the forward of chunk 1 on rank 0, which the cap
// forbids.
func TestPolicyCapDeadlock(t *testing.T) {
	tb := generate(t, "interleaved-1f1b", pipeline.Shape{Ranks: 2, Microbatches: 2, Chunks: 2})
	_, err := Simulate(tb, cost.Unit{}, Options{Policy: Ready, ActivationCap: 1})
	var de *DeadlockError
	if !errors.As(err, &de) || !errors.Is(err, pipeline.ErrDeadlock) {
		t.Fatalf("err = %v, want a deadlock", err)
	}
	want := Wait{Rank: 0, Index: 5, Action: pipeline.B(2, 0), WaitsFor: pipeline.F(2, 0), On: 0, AtCap: true}
	if !slices.Contains(de.Waits, want) {
		t.Errorf("waits %v: want %v", de.Waits, want)
	}
}

func TestPolicyHintRanks(t *testing.T) {
	// Zero-bubble order: I before F before W; backward-first: B, I, W
	// before F; the table hint ranks all alike.
	for _, tc := range []struct {
		hint Hint
		want [numQueues - 1]int
	}{
		{TableOrder, [numQueues - 1]int{0, 0, 0}},
		{BackwardFirst, [numQueues - 1]int{1, 0, 0}},
		{InputForwardWeight, [numQueues - 1]int{1, 0, 2}},
	} {
		for q := queueF; q < queueInPlace; q++ {
			if got := tc.hint.rank(q); got != tc.want[q] {
				t.Errorf("hint %v queue %d: rank %d, want %d", tc.hint, q, got, tc.want[q])
			}
		}
	}
	for _, name := range []string{"table", "bf", "bfw"} {
		h, err := ParseHint(name)
		if err != nil || h.String() != name {
			t.Errorf("ParseHint(%q) = %v, %v", name, h, err)
		}
	}
	if _, err := ParseHint("fb"); err == nil {
		t.Error("ParseHint accepted fb")
	}
	if _, err := ParsePolicy("eager"); err == nil {
		t.Error("ParsePolicy accepted eager")
	}
}

// UNSHARD, RESHARD and REDUCE_GRAD keep their row position under Ready:
// a REDUCE_GRAD that ends a row runs after every compute of the rank, an
// UNSHARD that starts it before any.
func TestPolicyReadyKeepsInPlaceActions(t *testing.T) {
	tb := generate(t, "zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8}).Clone()
	for r := range tb.Rows {
		unshard := pipeline.Action{Kind: pipeline.Unshard, Stage: r, Microbatch: pipeline.NoMicrobatch}
		reduce := pipeline.Action{Kind: pipeline.ReduceGrad, Stage: r, Microbatch: pipeline.NoMicrobatch}
		tb.Rows[r] = append(append([]pipeline.Action{unshard}, tb.Rows[r]...), reduce)
	}
	opt := Options{Policy: Ready, Hint: InputForwardWeight, Variability: Variability{Seed: 4, Sigma: 0.5}}
	tl := simulateOK(t, tb, cost.Explicit{TF: 1, TB: 1, TW: 1}, opt)
	for r, evs := range rankEvents(tl) {
		first, last := evs[0].Start, evs[len(evs)-1].End
		for _, e := range tl.Events {
			if e.Rank != r {
				continue
			}
			switch e.Action.Kind {
			case pipeline.Unshard:
				if e.End > first {
					t.Errorf("rank %d: UNSHARD ends at %v, after the first compute starts at %v", r, e.End, first)
				}
			case pipeline.ReduceGrad:
				if e.Start < last {
					t.Errorf("rank %d: REDUCE_GRAD starts at %v, before the last compute ends at %v", r, e.Start, last)
				}
			}
		}
	}
}
