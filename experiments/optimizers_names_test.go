package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/optim"
)

// A spec names lion, muon and ef: their authors' defaults fill the unset
// parameters, the run ids carry them, and every run replays.
func TestSpecRunsLionMuonAndErrorFeedback(t *testing.T) {
	src := "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2]\ntotal_microbatches: [8]\nmethods:\n" +
		"  - {name: ef, optimizer: lion, step_sizes: {values: [0.01]}}\n" +
		"  - {name: ef, accumulate: 1, ef_lambda: 0.5, optimizer: {name: muon, muon_scale: match_rms_adamw}, step_sizes: {values: [0.01]}}\n"
	runs := mustSpec(t, src).Expand()
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	lion, muon := runs[0], runs[1]
	if o := lion.Optimizer; o.Algorithm != optim.Lion || o.Beta1 != 0.9 || o.Beta2 != 0.99 || o.WeightDecay != 0 || lion.EFLambda != optim.DefaultEFLambda {
		t.Errorf("lion run: %+v, λ %g", o, lion.EFLambda)
	}
	if o := muon.Optimizer; o.Algorithm != optim.Muon || o.Momentum != 0.95 || o.MuonScale != optim.MuonMatchRMS || muon.EFLambda != 0.5 || muon.Accumulate != 1 {
		t.Errorf("muon run: %+v, λ %g, A %d", o, muon.EFLambda, muon.Accumulate)
	}
	for _, want := range []string{"optimizer=lion/b1=0.9/b2=0.99/wd=0", "lambda=1"} {
		if !strings.Contains(lion.Name, want) {
			t.Errorf("run name %q lacks %q", lion.Name, want)
		}
	}
	for _, want := range []string{"optimizer=muon/mu=0.95", "scale=match_rms_adamw", "A=1", "lambda=0.5"} {
		if !strings.Contains(muon.Name, want) {
			t.Errorf("run name %q lacks %q", muon.Name, want)
		}
	}
	for _, r := range runs {
		out, err := Execute(context.Background(), r)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if len(out.Runs) != 1 || out.Runs[0].Method != "ef" {
			t.Errorf("%s: runs %+v", r.Name, out.Runs)
		}
	}
}
