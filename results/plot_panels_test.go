package results

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// pngHeight returns the height in pixels of the PNG at path.
func pngHeight(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Height
}

// A final-loss plot with more than maxPanelLines lines over two optimizers
// is drawn as two panels, one per optimizer, stacked: twice the height of
// the same methods under one optimizer, whose nine lines share one panel.
func TestFinalVsStagesSmallMultiples(t *testing.T) {
	methods := []string{"pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc", "rpd", "localsgd", "sync"}
	runsOf := func(optimizers ...string) []Run {
		var runs []Run
		for _, m := range methods {
			for _, opt := range optimizers {
				for _, s := range []int32{4, 8} {
					runs = append(runs, Run{RunID: fmt.Sprintf("%s-%s-%d", m, opt, s), Objective: "logistic", Method: m, Optimizer: opt,
						Stages: s, StepSize: 0.1, CostModel: CostGPU, Outcome: OutcomeOK, FinalLoss: 0.3 + 0.01*float64(s), Selected: true})
				}
			}
		}
		return runs
	}
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.png"), filepath.Join(dir, "two.png")
	if err := PlotFinalVsStages(one, runsOf("adam b1=0.9")); err != nil {
		t.Fatal(err)
	}
	if err := PlotFinalVsStages(two, runsOf("adam b1=0.9", "momentum mu=0.9")); err != nil {
		t.Fatal(err)
	}
	if h1, h2 := pngHeight(t, one), pngHeight(t, two); h2 < 2*h1-2 {
		t.Errorf("18 lines over two optimizers: %d px high, want two panels of the one-optimizer plot's %d", h2, h1)
	}
	if sets := byOptimizer(runsOf("momentum mu=0.9", "adam b1=0.9")); len(sets) != 2 || sets[0][0].Optimizer != "adam b1=0.9" || len(sets[1]) != 18 {
		t.Errorf("byOptimizer: %d sets, want adam's then momentum's 18 runs", len(sets))
	}
}
