package main

import (
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// train's --delays pipedream-mean and pipedream-profile are RPD under the
// delay models of the delay-profiles figure, built here from their
// definitions (docs/figures.md, delay-profiles): PipeDream's unit-time
// timeline of the same N; UniformAtMean at its steady-state mean delay, or
// the StageTrace of its delay rows.
func TestTrainMeasuredDelayModels(t *testing.T) {
	const n, d, batch, stages, microbatches, step, seed = 60, 12, 6, 3, 15, 0.02, 4
	data, err := objectives.RandomQuadratic(n, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := objectives.NewLeastSquares(data, stages, batch)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	if err != nil {
		t.Fatal(err)
	}
	tl := sim.FromGrid(tb)
	profile, err := optim.StageDelays(tl, optim.Steady)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := optim.Delays(tl)
	if err != nil {
		t.Fatal(err)
	}
	trace, err := optim.NewStageTrace(rows)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]optim.DelayModel{
		"pipedream-mean":    optim.UniformAtMean{Stages: stages, Mean: profile.Total.Mean, Microbatches: microbatches},
		"pipedream-profile": trace,
	}
	for name, model := range models {
		want, err := optim.Run(obj, optim.RPD{Delays: model}, optim.Settings{StepSize: step, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		rep := trainJSON(t, "--objective", "quadratic", "--n", "60", "--d", "12", "--batch-size", "6", "--stages", "3",
			"--total-microbatches", "15", "--step-size", "0.02", "--seed", "4", "--method", "rpd", "--delays", name)
		if got := rep["final_loss"].(float64); got != want.FinalLoss {
			t.Errorf("--delays %s: final loss %.17g, RPD under the model built from its definition %.17g", name, got, want.FinalLoss)
		}
	}
}
