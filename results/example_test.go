package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/results"
)

// Write the runs and loss curves of an experiment, read them back, and
// draw the loss against simulated time.
func Example() {
	dir, err := os.MkdirTemp("", "results-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	tables := &results.Tables{
		Runs: []results.Run{
			{RunID: "pd-S4", Objective: "quadratic", Method: "pipedream", Stages: 4, CostModel: results.CostUnit, Outcome: results.OutcomeOK, FinalLoss: 0.25},
			{RunID: "lsgd-S4", Objective: "quadratic", Method: "localsgd", Stages: 4, CostModel: results.CostUnit, Outcome: results.OutcomeOK, FinalLoss: 0.5},
		},
		Curves: []results.CurvePoint{
			{RunID: "pd-S4", Time: 10, BlockUpdates: 20, Loss: 0.25},
			{RunID: "pd-S4", Time: 0, BlockUpdates: 0, Loss: 1},
			{RunID: "lsgd-S4", Time: 0, BlockUpdates: 0, Loss: 1},
			{RunID: "lsgd-S4", Time: 10, BlockUpdates: 16, Loss: 0.5},
		},
	}
	if err := results.WriteDir(dir, tables); err != nil {
		fmt.Println(err)
		return
	}
	back, err := results.ReadDir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range back.Curves {
		fmt.Printf("%s t=%g loss=%g\n", p.RunID, p.Time, p.Loss)
	}
	if err := results.PlotLossVsTime(filepath.Join(dir, "loss.svg"), back.Runs, back.Curves); err != nil {
		fmt.Println(err)
	}
	// Output:
	// lsgd-S4 t=0 loss=1
	// lsgd-S4 t=10 loss=0.5
	// pd-S4 t=0 loss=1
	// pd-S4 t=10 loss=0.25
}

// A log axis that cannot show its data is an error, not a broken figure.
func ExamplePlotFinalVsStages() {
	runs := []results.Run{{RunID: "a", Method: "rpd", Stages: 8, Outcome: results.OutcomeOK, FinalLoss: 0}}
	// The error comes before anything is drawn: no file is written.
	err := results.PlotFinalVsStages("final.png", runs)
	fmt.Println(err)
	// Output:
	// results: final.png: run "a": stages 8, final loss 0: results: value not positive and finite on a log axis
}

// LogTicks labels 1, 2 and 5 times each power of ten.
func ExampleLogTicks() {
	for _, t := range (results.LogTicks{}).Ticks(0.5, 20) {
		if t.Label != "" {
			fmt.Print(t.Label, " ")
		}
	}
	fmt.Println()
	// Output:
	// 0.5 1 2 5 10 20
}

// RankKinds ranks schedule families by makespan within one shape, cost
// model and level.
func ExampleRankKinds() {
	m := []results.ScheduleMetric{
		{Family: "gpipe", Ranks: 4, Microbatches: 8, Level: results.LevelFormula, Makespan: 33},
		{Family: "zb-h1", Ranks: 4, Microbatches: 8, Level: results.LevelFormula, Makespan: 27},
		{Family: "1f1b", Ranks: 4, Microbatches: 8, Level: results.LevelFormula, Makespan: 33},
	}
	results.RankKinds(m)
	for _, r := range m {
		fmt.Println(r.Family, r.KindRank)
	}
	// Output:
	// gpipe 2
	// zb-h1 1
	// 1f1b 2
}

// PairedDifferences is the rule every claim goes through: five seeds'
// differences, their mean, its 95 % t interval and the seeds that agree.
func ExamplePairedDifferences() {
	p := results.PairedDifferences([]float64{-0.12, -0.08, -0.10, -0.11, -0.04})
	fmt.Println(p, p.Holds())
	// Output: -0.090 [-0.129, -0.051], 5 of 5 seeds true
}

// Claims pairs each method with its group's baseline by seed, on the
// metric the steps were selected on and the others beside it.
func ExampleClaims() {
	var runs []results.Run
	for rep, d := range []float64{0.02, 0.03, 0.01, 0.04, 0.03} {
		for _, m := range []struct {
			name string
			loss float64
		}{{"sync", 0.5}, {"pipedream", 0.5 + d}} {
			runs = append(runs, results.Run{RunID: fmt.Sprint(m.name, rep), Experiment: "e", Objective: "logistic",
				Method: m.name, Stages: 4, TotalMicrobatches: 100, Replicate: int32(rep), Outcome: results.OutcomeOK,
				FinalLoss: m.loss, HeldOutLoss: m.loss + 0.1, Selected: true, SelectionRule: "best-final"})
		}
	}
	claims, _ := results.Claims(runs)
	for _, c := range claims {
		fmt.Println(c.Method, "−", c.Baseline, c.Metric, "selected on", c.SelectedOn+":", c.Paired(), c.Holds)
	}
	// Output:
	// pipedream − sync final selected on held-out: +0.026 [+0.012, +0.040], 5 of 5 seeds true
	// pipedream − sync held-out selected on held-out: +0.026 [+0.012, +0.040], 5 of 5 seeds true
}
