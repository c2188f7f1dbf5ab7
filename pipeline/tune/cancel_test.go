package tune

import (
	"context"
	"errors"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// A search whose Problem.Sim.Context is done returns the context's error
// instead of a choice.
func TestCancelledContextEndsTheSearch(t *testing.T) {
	model, _ := cost.LookupNetwork("vlm-7b")
	gpu, _ := cost.LookupGPU("h200")
	link, _ := cost.LookupLink("ib-ndr")
	cfg := cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Tune(Problem{Config: cfg, Ranks: 4, Sim: sim.Options{Context: ctx}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Tune with a cancelled context: %v; want context.Canceled", err)
	}
}

// TuneCluster stops between splits, and within one, when its Sim.Context is
// done.
func TestCancelledContextEndsTheClusterSearch(t *testing.T) {
	p := clusterProblem(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Sim.Context = ctx
	if _, err := TuneCluster(p); !errors.Is(err, context.Canceled) {
		t.Errorf("TuneCluster with a cancelled context: %v; want context.Canceled", err)
	}
}
