package optim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// UniformAtMean's delays, past the warm-up (k above the larger bound), have
// mean m: the mixture of U{0..⌊2m⌋} and U{0..⌊2m⌋+1} with weights
// ⌊2m⌋+1−2m and 2m−⌊2m⌋ has mean m and second moment
// Σ p_δ·δ(2δ+1)/6 (the moments of a discrete uniform). The sample mean of
// n draws is within 4 standard errors of m, a bound a correct model
// crosses with probability below 1e-4; the second moment likewise. Every
// delay lies in 0..min(bound, k), and stage and microbatch are in range.
func TestUniformAtMeanHitsTheMean(t *testing.T) {
	for _, m := range []float64{0, 3, 7.55, 31.65, 0.2} {
		u := UniformAtMean{Stages: 8, Mean: m, Microbatches: 50}
		lo := math.Floor(2 * m)
		pLo := lo + 1 - 2*m
		second := pLo*lo*(2*lo+1)/6 + (1-pLo)*(lo+1)*(2*lo+3)/6
		variance := second - m*m
		rng := rand.New(rand.NewPCG(1, uint64(m*100)))
		it := Iteration{Delays: make([]int, u.Stages)}
		var sum, sumSq float64
		n := 0
		for k := 0; k < 20000; k++ {
			if err := u.Draw(k, &it, rng); err != nil {
				t.Fatal(err)
			}
			if it.Stage < 0 || it.Stage >= u.Stages || it.Microbatch < 0 || it.Microbatch >= u.Microbatches {
				t.Fatalf("m=%g k=%d: stage %d microbatch %d out of range", m, k, it.Stage, it.Microbatch)
			}
			for _, d := range it.Delays {
				if d < 0 || d > min(u.Bound(), k) {
					t.Fatalf("m=%g k=%d: delay %d outside 0..%d", m, k, d, min(u.Bound(), k))
				}
				if k > u.Bound() {
					sum += float64(d)
					sumSq += float64(d * d)
					n++
				}
			}
		}
		se := math.Sqrt(variance / float64(n))
		if got := sum / float64(n); math.Abs(got-m) > 4*se+1e-12 {
			t.Errorf("m=%g: mean of %d delays %.4f, want within 4·%.4f of m", m, n, got, se)
		}
		// The squares' standard error is below max²/√n.
		if got, tol := sumSq/float64(n), 4*float64(u.Bound()*u.Bound())/math.Sqrt(float64(n)); math.Abs(got-second) > tol+1e-12 {
			t.Errorf("m=%g: second moment %.4f, want %.4f ± %.4f", m, got, second, tol)
		}
	}
	if err := (UniformAtMean{Stages: 2, Mean: math.NaN(), Microbatches: 1}).Draw(0, &Iteration{Delays: make([]int, 2)}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("a NaN mean was accepted")
	}
}

// A stage trace gives each stage its own rows of the delay table in the
// table's order (then again from the second half), delays capped at k, and
// the stages in proportions near 1/S; Draw(0) rewinds it, so a second pass
// with the same stream repeats the first.
func TestStageTraceKeepsEachStagesSequence(t *testing.T) {
	const stages, n = 4, 40
	dt, err := Delays(pipeDreamTimeline(t, stages, n))
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStageTrace(dt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != stages*n || st.Bound() != dt.Bound() {
		t.Fatalf("len %d bound %d, want %d and %d", st.Len(), st.Bound(), stages*n, dt.Bound())
	}
	var own [stages][]DelayRow
	for _, r := range dt.Rows {
		own[r.Stage] = append(own[r.Stage], r)
	}
	pass := func() []Iteration {
		rng := rand.New(rand.NewPCG(3, 4))
		var out []Iteration
		for k := 0; k < 3*st.Len(); k++ {
			it := Iteration{Delays: make([]int, stages)}
			if err := st.Draw(k, &it, rng); err != nil {
				t.Fatal(err)
			}
			out = append(out, it)
		}
		return out
	}
	first := pass()
	used := [stages]int{}
	for k, it := range first {
		i := used[it.Stage]
		if i >= n { // past the end: the second half again, in order
			i = n/2 + (i-n)%(n-n/2)
		}
		used[it.Stage]++
		want := own[it.Stage][i]
		if it.Microbatch != want.Microbatch {
			t.Fatalf("k=%d stage %d: microbatch %d, want row %d's %d", k, it.Stage, it.Microbatch, i, want.Microbatch)
		}
		for j, d := range want.Delays {
			if it.Delays[j] != min(d, k) {
				t.Fatalf("k=%d stage %d block %d: delay %d, want min(%d, k)", k, it.Stage, j, it.Delays[j], d)
			}
		}
	}
	for s, c := range used {
		// Binomial(3SN, 1/S): the standard deviation is below 12 here.
		if want := 3 * n; math.Abs(float64(c-want)) > 48 {
			t.Errorf("stage %d drawn %d times, want about %d", s, c, want)
		}
	}
	if second := pass(); !slices.EqualFunc(first, second, func(a, b Iteration) bool {
		return a.Stage == b.Stage && a.Microbatch == b.Microbatch && slices.Equal(a.Delays, b.Delays)
	}) {
		t.Error("a second pass from the same stream differs: Draw(0) did not rewind")
	}
	if _, err := NewStageTrace(&DelayTable{Stages: 2, Rows: []DelayRow{{Stage: 0, Delays: []int{0, 0}}}}); err == nil {
		t.Error("a table without an update of stage 1 was accepted")
	}
}

// RPD runs with both models on the random quadratic and is deterministic:
// two runs with one seed give the same losses.
func TestRPDWithProfileModels(t *testing.T) {
	data, err := objectives.RandomQuadratic(200, 32, 5)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := objectives.NewLeastSquares(data, 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := Delays(pipeDreamTimeline(t, 4, 40))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := StageDelays(pipeDreamTimeline(t, 4, 40), Steady)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]func() DelayModel{
		"mean":  func() DelayModel { return UniformAtMean{Stages: 4, Mean: prof.Total.Mean, Microbatches: 40} },
		"trace": func() DelayModel { st, _ := NewStageTrace(dt); return st },
	}
	for name, model := range models {
		var finals []float64
		for range 2 {
			res, err := Run(obj, RPD{Delays: model()}, Settings{StepSize: 1.0 / 64, Seed: 9})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.BlockUpdates != 160 || !(res.FinalLoss < res.Records[0].Loss) {
				t.Errorf("%s: %d updates, loss %g from %g", name, res.BlockUpdates, res.FinalLoss, res.Records[0].Loss)
			}
			finals = append(finals, res.FinalLoss)
		}
		if finals[0] != finals[1] {
			t.Errorf("%s: two runs with one seed end at %v", name, finals)
		}
	}
}

// 2BW's per-stage delays: with accumulate 1 they are PipeDream's own-block
// delays (StageDelays' PerStage); with groups they match an independent
// count over the replay order: j is the number of landings (a group's
// last backward on its stage) before F(m, s), k the landing of m's group,
// both found by scanning the event list rather than by following it.
func TestTwoBWStageDelays(t *testing.T) {
	for _, sh := range []struct{ stages, n int }{{2, 6}, {4, 40}, {5, 17}} {
		tl := pipeDreamTimeline(t, sh.stages, sh.n)
		p, err := StageDelays(tl, Steady)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TwoBWStageDelays(tl, 1, Steady)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, p.PerStage) {
			t.Errorf("S=%d N=%d, A=1: %+v, want PipeDream's %+v", sh.stages, sh.n, got, p.PerStage)
		}
		for _, a := range []int{2, sh.stages, 3} {
			got, err := TwoBWStageDelays(tl, a, Steady)
			if err != nil {
				t.Fatal(err)
			}
			if want := twoBWByScan(tl, a, sh.stages, sh.n); !slices.Equal(got, want) {
				t.Errorf("S=%d N=%d A=%d: %+v, want %+v", sh.stages, sh.n, a, got, want)
			}
		}
	}
	tab, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 16})
	if err != nil {
		t.Fatal(err)
	}
	zb, err := sim.Simulate(tab, cost.Unit{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := StageDelays(zb, Steady)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := TwoBWStageDelays(zb, 1, Steady); err != nil || !slices.Equal(got, p.PerStage) {
		t.Errorf("zb-h1, A=1: %+v (%v), want PipeDream's %+v", got, err, p.PerStage)
	}
}

// twoBWByScan is the reference for TwoBWStageDelays: positions in the
// replay order, the landings as a sorted list of positions, and sorted
// per-stage delays summarised as the stage-delay test's sortedStats does.
func twoBWByScan(tl *sim.Timeline, a, stages, n int) []DelayStats {
	events := replayOrder(tl)
	fwd := map[[2]int]int{}
	var backs [][3]int // position, stage, microbatch
	for i, e := range events {
		switch e.Action.Kind {
		case pipeline.Forward:
			fwd[[2]int{e.Action.Microbatch, e.Action.Stage}] = i
		case pipeline.Backward, pipeline.BackwardWeight:
			backs = append(backs, [3]int{i, e.Action.Stage, e.Action.Microbatch})
		}
	}
	// A stage's c-th backward (from 1) lands when c completes a group.
	var landings []int
	count := make([]int, stages)
	for _, b := range backs {
		count[b[1]]++
		if c := count[b[1]]; c%a == 0 || c == n {
			landings = append(landings, b[0])
		}
	}
	first := len(landings) / 2
	own := make([][]int, stages)
	count = make([]int, stages)
	group := make([][]int, stages)
	for _, b := range backs {
		s, m := b[1], b[2]
		count[s]++
		group[s] = append(group[s], m)
		c := count[s]
		if c%a != 0 && c != n {
			continue
		}
		k, _ := slices.BinarySearch(landings, b[0])
		for _, m := range group[s] {
			j, _ := slices.BinarySearch(landings, fwd[[2]int{m, s}])
			if k >= first {
				own[s] = append(own[s], k-j)
			}
		}
		group[s] = nil
	}
	out := make([]DelayStats, stages)
	for s := range own {
		out[s] = sortedStats(own[s], len(own[s]))
	}
	return out
}
