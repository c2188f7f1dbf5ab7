package experiments

import (
	"context"
	"math"
	"testing"
)

// TestDCDiffersFromPipeDream: at the remedies figure's logistic settings
// (n 600, d 512, batch 10, σ 0.5, S = 16 on 1F1B, momentum at PipeDream's
// centre step 2^-10; a shorter run), every dc and dc-a entry of the
// preset moves the run away from PipeDream, and the adaptive form moves
// it far more than the constant one at their defaults. With common random
// numbers (one seed, one noise stream) the differences are the
// corrections' alone.
//
// The expected ratio is an independent estimate: the constant correction
// is λ·g², the adaptive one λ0·g²/rms(g); with the per-coordinate gradient
// dominated by the noise, rms(g) ≈ σ = 0.5, so at λ = 0.04 and λ0 = 2 the
// adaptive correction is λ0/(λ·σ) = 100 times larger, and to first order
// so is its effect on the final loss. The test asks for more than 10.
func TestDCDiffersFromPipeDream(t *testing.T) {
	s := presetSpec(t, figureRemedies, false, "remedies-logistic-1f1b")
	final := func(method string, lambda float64) float64 {
		t.Helper()
		var opt MethodSpec
		for _, m := range s.Methods {
			if m.Name == "pipedream" && m.Optimizer.Name == "momentum" {
				opt = m
			}
		}
		r := Run{Measure: Convergence, Objective: "logistic", N: s.N, D: s.D, Batch: s.Batch, Noise: 0.5,
			Method: method, Stages: 16, Step: math.Ldexp(1, -10), Family: "1f1b", TotalMicrobatches: 40 * 16,
			DataSeed: 3, Seed: 4, DCLambda: lambda, Optimizer: opt.Optimizer.Settings(), Cost: CostSpec{CostModel: "unit"}}
		res, err := Train(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		return res.FinalLoss
	}
	pd := final("pipedream", 0)
	for _, m := range s.Methods {
		if (m.Name == "dc" || m.Name == "dc-a") && m.Optimizer.Name == "momentum" {
			if f := final(m.Name, *m.DCLambda); f == pd {
				t.Errorf("%s at λ = %g ends at PipeDream's loss %g", m.Name, *m.DCLambda, pd)
			}
		}
	}
	dc, dca := math.Abs(final("dc", 0.04)-pd), math.Abs(final("dc-a", 2)-pd)
	if !(dca > 10*dc) {
		t.Errorf("|dc-a − pd| = %.3g, |dc − pd| = %.3g: ratio %.3g, want above 10 (about 100 expected)", dca, dc, dca/dc)
	}
	t.Logf("|dc − pd| = %.3g, |dc-a − pd| = %.3g (ratio %.3g)", dc, dca, dca/dc)
}
