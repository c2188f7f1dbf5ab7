package experiments

import (
	"math"
	"testing"
)

// The microbatches a run's estimate assumes are those its budget matches
// (optim.MatchBudget on the real timelines): exactly, up to rounding, for
// PipeDream in unit time, whose T = 2N + 2S - 2 (docs/reference.md §1.2);
// within 10% for LocalSGD and for the GPU timings, whose fills and
// averagings the steady-state count leaves out.
func TestEstimatedMicrobatchesMatchTheBudget(t *testing.T) {
	runs, err := figureScaling.Runs(true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[pipeKey]bool{}
	for _, r := range runs {
		if r.Method == "rpd" {
			continue // PipeDream's, matched again
		}
		family := r.Method
		k := timelineKey(family, r)
		if seen[k] {
			continue
		}
		seen[k] = true
		pt, err := timelineFor(family, r)
		if err != nil {
			t.Fatal(err)
		}
		est, got := estimatedMicrobatches(r), float64(pt.n)
		tol := 0.1 * got
		if family == "pipedream" && r.Cost.CostModel != "gpu" {
			tol = 1
		}
		if math.Abs(est-got) > tol {
			t.Errorf("%s S=%d %s: estimated %.1f microbatches, the budget matches %g", family, r.Stages, r.Cost.CostModel, est, got)
		}
	}
	if len(seen) < 10 {
		t.Errorf("only %d timelines compared", len(seen))
	}
}

// The estimate orders what the figures' runs cost: RPD's iterations over
// all S blocks cost about S/2 of PipeDream's microbatches at the same S;
// the character LM costs more than any logistic run; and a run's cost
// grows with its budget (its 100 loss records do not).
func TestEstimatedSecondsOrderTheRuns(t *testing.T) {
	runs, err := figureScaling.Runs(false)
	if err != nil {
		t.Fatal(err)
	}
	var pd, rpd, most float64
	for _, r := range runs {
		e := EstimatedSeconds(r)
		most = max(most, e)
		if r.Stages == 128 && r.Step == runs[0].Step && r.Replicate == 0 {
			switch r.Method {
			case "pipedream":
				pd = e
			case "rpd":
				rpd = e
			}
		}
		doubled := r
		doubled.Budget *= 2
		if !(EstimatedSeconds(doubled) > e) {
			t.Errorf("%s: doubling the budget takes the estimate from %g to %g s", r.Name, e, EstimatedSeconds(doubled))
		}
	}
	if !(rpd > 16*pd) {
		t.Errorf("RPD at S = 128 estimated %g s, PipeDream %g s: want more than S/8 times", rpd, pd)
	}
	lm, err := figureLMText.Runs(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lm {
		if e := EstimatedSeconds(r); !(e > most) {
			t.Errorf("%s: estimated %g s, not above the scaling figure's longest run, %g s", r.Name, e, most)
		}
	}
}
