package results

import (
	"math"
	"path/filepath"
	"testing"
)

// TargetBars averages time_to_target over the seeds that reached the
// target, spans them with min and max, counts the others, leaves RPD
// out and keeps only the selected step when one is selected; the
// expected numbers are the hand means of the rows below.
func TestTargetBars(t *testing.T) {
	row := func(method, opt string, s int32, step, ttt float64, sel bool) Run {
		return Run{RunID: method + opt + string(rune('a'+int(ttt))), Method: method, Optimizer: opt, Stages: s, StepSize: step,
			TimeToTarget: ttt, Selected: sel, Outcome: OutcomeOK, CostModel: CostGPU, Objective: "logistic"}
	}
	runs := []Run{
		row("pipedream", "adam b1=0.9", 4, 0.1, 2, true),
		row("pipedream", "adam b1=0.9", 4, 0.1, 4, true),
		row("pipedream", "adam b1=0.9", 4, 0.1, math.NaN(), true),
		row("pipedream", "adam b1=0.9", 4, 0.2, 1, false), // not the selected step
		row("sync", "momentum mu=0.9", 4, 0.1, math.NaN(), true),
		row("rpd", "momentum mu=0.9", 4, 0.1, 7, true),
	}
	bars := TargetBars(runs)
	if len(bars) != 2 {
		t.Fatalf("bars %+v, want pipedream adam and sync momentum", bars)
	}
	pd, sync := bars[0], bars[1]
	if pd.Method != "pipedream" || pd.Optimizer != "adam" || pd.Mean != 3 || pd.Min != 2 || pd.Max != 4 || pd.Reached != 2 || pd.Seeds != 3 {
		t.Errorf("pipedream: %+v, want mean 3 of 2..4, 2 of 3 seeds", pd)
	}
	if sync.Method != "sync" || sync.Reached != 0 || !math.IsNaN(sync.Mean) {
		t.Errorf("sync: %+v, want not reached", sync)
	}
	path := filepath.Join(t.TempDir(), "ttt.png")
	if err := PlotTimeToTarget(path, runs); err != nil {
		t.Fatal(err)
	}
	if err := PlotTimeToTarget(path, []Run{row("rpd", "sgd", 4, 0.1, 1, false)}); err == nil {
		t.Error("a chart of RPD alone, which has no time axis, was drawn")
	}
}

// A time-to-target title states the target the runs were timed to, each
// distinct one once, and says so when the table has none recorded.
func TestTargetText(t *testing.T) {
	for _, c := range []struct {
		targets []float64
		want    string
	}{
		{[]float64{3.3128, 3.3128, 0}, "the target loss 3.3128"},
		{[]float64{0.6, 0.5, 0.6}, "the target losses 0.5, 0.6"},
		{[]float64{0, 0}, "the target loss (not recorded)"},
	} {
		var runs []Run
		for _, v := range c.targets {
			runs = append(runs, Run{TargetLoss: v})
		}
		if got := targetText(runs); got != c.want {
			t.Errorf("targets %v: %q, want %q", c.targets, got, c.want)
		}
	}
}
