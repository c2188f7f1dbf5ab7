package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A loss plot of runs whose every curve point has a validation loss (the
// LM on its text) draws the validation loss, the loss time to target is
// judged by, and says so on its axis; one point without it, and the plot
// draws the training loss.
func TestLossPlotDrawsTheValidationLoss(t *testing.T) {
	runs := []Run{{RunID: "a", Method: "pipedream", Objective: "charlm", StepSize: 0.0625, Stages: 4, CostModel: CostUnit, Outcome: OutcomeOK}}
	curves := []CurvePoint{
		{RunID: "a", Time: 0, Loss: 4.2, ValidationLoss: 4.3},
		{RunID: "a", Time: 1, Loss: 3.1, ValidationLoss: 3.4},
	}
	if !hasValidation(runs, curves) {
		t.Fatal("every point has a validation loss, hasValidation says no")
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time }, curveLoss(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := lines[0].XY; got[0].Y != 4.3 || got[1].Y != 3.4 {
		t.Errorf("drawn %v, want the validation losses 4.3 and 3.4", got)
	}
	path := filepath.Join(t.TempDir(), "loss.svg")
	if err := PlotLossVsTime(path, runs, curves); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "validation loss") {
		t.Error("the axis does not say it is the validation loss")
	}
	curves[1].ValidationLoss = math.NaN()
	if hasValidation(runs, curves) {
		t.Error("a point without a validation loss, hasValidation says yes")
	}
}
