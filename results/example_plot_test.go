package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/results"
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

// Every figure draws a method in its one colour, whatever else it shows.
func ExampleMethodColor() {
	fmt.Println(results.MethodColor("pipedream"))
	fmt.Println(results.MethodColor("sync"))
	// Output:
	// {0 114 178 255}
	// {51 51 51 255}
}

// A title names the clock; the tables know only the cost model, so the
// GPU model's presets are passed with WithClock.
func ExampleClock() {
	fmt.Println(results.Clock{CostModel: results.CostUnit})
	fmt.Println(results.Clock{CostModel: results.CostGPU, Preset: "gpt-1.3b", GPU: "a100", Link: "nvlink"})
	// Output:
	// unit time
	// GPU model: gpt-1.3b on a100 over nvlink
}

// Data within one decade still get four labels: 1-2-5 and every integer
// multiple give too few, multiples of 0.05 enough.
func ExampleLogTicks_narrow() {
	for _, t := range (results.LogTicks{}).Ticks(0.37, 0.56) {
		if t.Label != "" {
			fmt.Print(t.Label, " ")
		}
	}
	fmt.Println()
	// Output:
	// 0.4 0.45 0.5 0.55
}

// A makespan of 0.337 s is labelled every 0.05 s.
func ExampleLinearTicks() {
	for _, t := range (results.LinearTicks{}).Ticks(0, 0.337) {
		if t.Label != "" {
			fmt.Print(t.Label, " ")
		}
	}
	fmt.Println()
	// Output:
	// 0.00 0.05 0.10 0.15 0.20 0.25 0.30
}
