package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"pipelab/results"
)

// PlotGantt draws one schedule's timeline; with several schedules in the
// events it must be told which.
func ExamplePlotGantt() {
	dir, err := os.MkdirTemp("", "results-gantt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	events := []results.TimelineEvent{
		{ScheduleID: "1f1b", Rank: 0, Index: 0, Kind: "F", Stage: 0, Microbatch: 0, Start: 0, End: 1},
		{ScheduleID: "1f1b", Rank: 1, Index: 0, Kind: "F", Stage: 1, Microbatch: 0, Start: 1, End: 2},
		{ScheduleID: "1f1b", Rank: 1, Index: 1, Kind: "B", Stage: 1, Microbatch: 0, Start: 2, End: 4},
		{ScheduleID: "1f1b", Rank: 0, Index: 1, Kind: "B", Stage: 0, Microbatch: 0, Start: 4, End: 6},
		{ScheduleID: "gpipe", Rank: 0, Index: 0, Kind: "F", Stage: 0, Microbatch: 0, Start: 0, End: 1},
	}
	path := filepath.Join(dir, "gantt.svg")
	fmt.Println(results.PlotGantt(path, events, nil, "1f1b"))
	err = results.PlotGantt("gantt.svg", events, nil, "")
	fmt.Println(err)
	// Output:
	// <nil>
	// results: gantt.svg: timeline holds 2 schedules ["1f1b" "gpipe"]; name one
}

// A comparison needs every family at every level present.
func ExamplePlotScheduleComparison() {
	metrics := []results.ScheduleMetric{
		{ScheduleID: "a", Family: "1f1b", Ranks: 4, Microbatches: 8, CostModel: results.CostUnit, Level: results.LevelFormula, Makespan: 22},
		{ScheduleID: "b", Family: "1f1b", Ranks: 4, Microbatches: 8, CostModel: results.CostUnit, Level: results.LevelLockstep, Makespan: 22},
		{ScheduleID: "c", Family: "gpipe", Ranks: 4, Microbatches: 8, CostModel: results.CostUnit, Level: results.LevelFormula, Makespan: 22},
	}
	err := results.PlotScheduleComparison("families.png", metrics)
	fmt.Println(err)
	// Output:
	// results: families.png: family "gpipe" has no row at level "lockstep"
}
