package results_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/results"
)

// The delays table holds rows over every stage's block (the delays figure)
// and per-stage rows (delay-profiles); each plot takes its own, and a
// per-stage row given twice is refused.
func ExamplePlotDelayProfiles() {
	dir, err := os.MkdirTemp("", "results-profiles")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	stats := []results.DelayStat{
		{Method: "pipedream", Kind: "pipedream", Stages: 2, Window: results.WindowSteady, Stage: results.AllStages, Max: 3, Mean: 1.5},
		{Method: "pipedream", Kind: "pipedream", Stages: 2, Window: results.WindowSteady, Stage: 0, Max: 3, Mean: 3},
		{Method: "pipedream", Kind: "pipedream", Stages: 2, Window: results.WindowSteady, Stage: 1, Max: 1, Mean: 1},
	}
	overall, profiles := results.SplitDelayProfiles(stats)
	fmt.Println(len(overall), len(profiles))
	fmt.Println(results.PlotDelayProfiles(filepath.Join(dir, "profiles.svg"), profiles))
	fmt.Println(results.PlotDelayProfiles("profiles.png", append(profiles, profiles[1])))
	// Output:
	// 1 2
	// <nil>
	// results: profiles.png: pipedream on pipedream, S = 2, stage 1 appears twice
}

// PlotDelayModels compares PipeDream and RPD's delay models at PipeDream's
// selected step size, so it needs one.
func ExamplePlotDelayModels() {
	runs := []results.Run{
		{RunID: "pd", Objective: "quadratic", Method: "pipedream", Stages: 8, StepSize: 0.0625},
		{RunID: "rpd", Objective: "quadratic", Method: results.MethodRPD, Stages: 8, StepSize: 0.0625, Delta: 72, DelayModel: results.DelayPipeDreamProfile},
	}
	var curves []results.CurvePoint
	for _, c := range []struct {
		run     string
		updates int64
		loss    float64
	}{{"pd", 0, 2}, {"pd", 10, 1}, {"rpd", 0, 2}, {"rpd", 10, 1.5}} {
		curves = append(curves, results.CurvePoint{RunID: c.run, BlockUpdates: c.updates, Loss: c.loss, ValidationLoss: math.NaN()})
	}
	fmt.Println(results.HasMeasuredDelays(runs))
	fmt.Println(results.PlotDelayModels("models.png", runs, curves))
	dir, err := os.MkdirTemp("", "results-models")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	runs[0].Selected = true
	fmt.Println(results.PlotDelayModels(filepath.Join(dir, "models.png"), runs, curves))
	// Output:
	// true
	// results: models.png: no selected PipeDream run to take the step size from: results: nothing to plot
	// <nil>
}
