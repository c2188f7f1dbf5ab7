package results

import (
	"path/filepath"
	"strings"
	"testing"
)

// Replicates of one setting make one line, their mean, with the band from
// the lowest to the highest seed; another setting keeps its own line.
// Seeds at losses (4, 2) and (2, 1) give the mean (3, 1.5) and the band
// [2, 4], [1, 2].
func TestSeedBand(t *testing.T) {
	runs := []Run{
		{RunID: "a", Method: "pipedream", StepSize: 0.1, Seed: 1, Replicate: 0, Outcome: OutcomeOK, Selected: true},
		{RunID: "b", Method: "pipedream", StepSize: 0.1, Seed: 2, Replicate: 1, Outcome: OutcomeOK, Selected: true},
		{RunID: "c", Method: "sync", StepSize: 0.2, Seed: 1, Replicate: 0, Outcome: OutcomeOK, Selected: true},
	}
	curves := []CurvePoint{
		{RunID: "a", Time: 1, Loss: 4}, {RunID: "a", Time: 2, Loss: 2},
		{RunID: "b", Time: 1, Loss: 2}, {RunID: "b", Time: 2, Loss: 1},
		{RunID: "c", Time: 1, Loss: 3}, {RunID: "c", Time: 2, Loss: 3},
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time }, curveLoss(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	pd := lines[0]
	if !strings.Contains(pd.Label, "mean of 2 seeds") || len(pd.XY) != 2 || pd.XY[0].Y != 3 || pd.XY[1].Y != 1.5 ||
		pd.Low[0].Y != 2 || pd.High[0].Y != 4 || pd.Low[1].Y != 1 || pd.High[1].Y != 2 {
		t.Errorf("pipedream: %+v, want the mean (3, 1.5) in the band [2, 4], [1, 2]", pd)
	}
	if lines[1].Low != nil {
		t.Errorf("sync, one seed, has a band: %+v", lines[1])
	}
	if err := PlotLossVsTime(filepath.Join(t.TempDir(), "band.png"), runs, curves); err != nil {
		t.Error(err)
	}
}
