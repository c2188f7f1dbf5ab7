package optim

import (
	"context"
	"errors"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// A run whose Settings.Context is done returns the context's error at once,
// whatever its records: one record for the whole run here, so only the
// context can stop it.
func TestCancelledContextEndsTheRun(t *testing.T) {
	data, err := objectives.RandomQuadratic(64, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := objectives.NewLeastSquares(data, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name, family string
		shape        pipeline.Shape
	}{
		{"pipedream", "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 400}},
		{"rpd", "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 400}},
		{"sync", "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 400}},
		{"localsgd", "localsgd", pipeline.Shape{Ranks: 4, Microbatches: 400, Replicas: 4, LocalSteps: 5}},
	} {
		name := tc.name
		tab, err := pipeline.Generate(tc.family, tc.shape)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMethod(name, sim.FromGrid(tab), MethodOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(obj, m, Settings{StepSize: 0.01, LogPoints: 1, Context: ctx})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v; want context.Canceled", name, err)
		}
	}
}
