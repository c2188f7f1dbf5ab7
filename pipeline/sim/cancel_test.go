package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// A run whose context is done returns the context's error, under both
// policies (the Ready policy's plan run too) and in every entry point that
// simulates, rather than a timeline.
func TestCancelledContextEndsTheRun(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 64})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, opt := range []Options{{Context: ctx}, {Context: ctx, Policy: Ready}} {
		if tl, err := Simulate(tab, cost.Unit{}, opt); !errors.Is(err, context.Canceled) || tl != nil {
			t.Errorf("policy %v: Simulate with a cancelled context = %v, %v; want context.Canceled", opt.Policy, tl, err)
		}
		if _, err := SimulateIterations(tab, cost.Unit{}, opt, 3, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("policy %v: SimulateIterations with a cancelled context: %v; want context.Canceled", opt.Policy, err)
		}
	}
	if _, err := CompareContext(ctx, "1f1b", tab, pipeline.Shape{Ranks: 4, Microbatches: 64}, cost.Unit{}, cost.Stage{TF: 1, TB: 1, TW: 1}, LockstepSteps); !errors.Is(err, context.Canceled) {
		t.Errorf("CompareContext with a cancelled context: %v; want context.Canceled", err)
	}
	// A live context changes nothing: the run is the one without it.
	want, err := Simulate(tab, cost.Unit{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Simulate(tab, cost.Unit{}, Options{Context: context.Background()})
	if err != nil || Makespan(got) != Makespan(want) || len(got.Events) != len(want.Events) {
		t.Errorf("with a live context: makespan %v, %d events (%v); without: %v, %d", Makespan(got), len(got.Events), err, Makespan(want), len(want.Events))
	}
}
