package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"pipelab/results"
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
