package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/results"
)

// Execute computes one run of any experiment kind, building the timelines
// it replays for this run alone (Timelines.Execute shares them).
func Execute(ctx context.Context, r Run) (*results.Tables, error) {
	return new(Timelines).Execute(ctx, r)
}

// Execute is Execute with the run's timelines taken from, or added to, c:
// the run function of a sweep's runner (sweep.Runner).
func (c *Timelines) Execute(ctx context.Context, r Run) (*results.Tables, error) {
	m, ok := measures[r.Measure]
	if !ok {
		return nil, fmt.Errorf("unknown measure %q", r.Measure)
	}
	return m.execute(ctx, c, r)
}

// RunRow fills the configuration columns of r's runs-table row: the row
// a run function (Execute, or a sweep.Runner's own) completes with the
// run's outcome.
func RunRow(r Run) results.Run {
	cost := results.CostUnit
	if r.Cost.desc().GPU {
		cost = results.CostGPU
	}
	row := results.Run{
		RunID: r.ID, Experiment: r.Spec, Objective: r.Objective, Method: r.Method,
		Stages: int32(r.Stages), TotalMicrobatches: int32(r.TotalMicrobatches), TimeBudget: r.Budget,
		StepSize: r.Step, BatchSize: int32(r.Batch), N: int32(r.N), D: int32(r.D), Noise: r.Noise,
		Delta: int32(r.Delta), LocalSteps: int32(r.LocalSteps), Seed: r.Seed, Replicate: int32(r.Replicate), CostModel: cost,
		SelectionRule: r.Select, ToolVersion: Version, Optimizer: r.Optimizer.Label(),
		TimeToTarget: math.NaN(), UpdatesToTarget: results.NotReached, LossAtBudget: math.NaN(),
		TargetLoss: r.TargetLoss, MethodSettings: r.methodSettings(),
	}
	if methodOf(r.Method).Replay == optim.ReplayAveraging {
		row.Replicas = int32(r.Stages)
	}
	if methodOf(r.Method).Replay == optim.ReplaySampled {
		row.DelayModel = cmp.Or(r.DelayModel, results.DelayUniform)
	}
	return row
}

// Version is recorded in every runs-table row.
const Version = "pipelab 0.1"
