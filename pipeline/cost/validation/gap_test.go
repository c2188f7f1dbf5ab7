package validation

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// TestActionGap: 1F1B on P = 2 ranks and M = 3 microbatches with F = B =
// 1 and no transfer time takes 2(M + P − 1) = 8 (the schedule's closed
// form); a gap g before every action makes each action 1 + g, so the
// same chain takes 8(1 + g).
func TestActionGap(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 3})
	if err != nil {
		t.Fatal(err)
	}
	costs := cost.Explicit{TF: 1, TB: 1}
	for _, g := range []float64{0, 0.25, 1} {
		tl, err := sim.Simulate(tab, actionGap{costs, g}, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sim.Makespan(tl), 8*(1+g); math.Abs(got-want) > 1e-12 {
			t.Errorf("gap %g: makespan %g, want %g", g, got, want)
		}
	}
}

// The gap is calibrated on its one row: that row is marked "in" and its
// prediction equals the published throughput (to the bisection's
// nanosecond), and every other throughput row stays a prediction.
func TestActionGapCalibratedOnItsRow(t *testing.T) {
	v, err := ValidateTimingModel()
	if err != nil {
		t.Fatal(err)
	}
	if !(v.ActionGap > 0 && v.ActionGap < 0.010) {
		t.Fatalf("action gap %g s, want inside (0, 10 ms)", v.ActionGap)
	}
	found := 0
	for _, r := range v.Rows {
		if r.Section != "throughput" {
			continue
		}
		if r.Quantity == gapRow && r.Config == "1.5B (p 8, b 6)" {
			found++
			if r.Calibration != "in" || math.Abs(r.Predicted/r.Published-1) > 1e-5 {
				t.Errorf("%s %s: %g against %g, calibration %q; want equal and in", r.Config, r.Quantity, r.Predicted, r.Published, r.Calibration)
			}
		} else if r.Calibration != "out" {
			t.Errorf("%s %s: calibration %q, want out", r.Config, r.Quantity, r.Calibration)
		}
	}
	if found != 1 {
		t.Errorf("%d rows named %q on 1.5B, want 1", found, gapRow)
	}
}
