package optim

import (
	"math"
	"testing"
)

// FastestToTarget ranks by the mean time to target over seeds, skips a
// step where a seed never reached it, and falls back to the lowest final
// loss where no step's seeds all did.
func TestFastestToTarget(t *testing.T) {
	res := func(ttt, final float64) *Result { return &Result{TimeToTarget: ttt, FinalLoss: final} }
	nan := math.NaN()
	steps := []float64{0.1, 0.2, 0.4}
	// Step 0.4 is fastest at one seed but never reaches at the other;
	// 0.2's mean (5) beats 0.1's (6) though 0.1 ends lower.
	runs := [][]*Result{{res(6, 0.1), res(6, 0.1)}, {res(4, 0.3), res(6, 0.3)}, {res(1, 0.2), res(nan, 0.2)}}
	c, err := FastestToTarget{}.Choose(steps, runs)
	if err != nil || c.Index != 1 || c.Score != 5 || c.Rule != "fastest-to-target" {
		t.Errorf("choice %+v (%v), want step 0.2 at mean time 5", c, err)
	}
	never := [][]*Result{{res(nan, 0.5)}, {res(nan, 0.2)}, {res(nan, 0.3)}}
	c, err = FastestToTarget{}.Choose(steps, never)
	if err != nil || c.Index != 1 || c.Rule != "fastest-to-target" {
		t.Errorf("no step reached the target: choice %+v (%v), want the lowest final loss, 0.2", c, err)
	}
}
