package results

import (
	"path/filepath"
	"testing"
)

// TestReferenceLossesDrawnAndHeld: a loss plot with three reference
// losses adds a legend entry for each and a loss axis that holds them
// with 2 % to spare, one below and one above the curves' range (lossRuns: 2·ρ^t from 2 down
// to about 2·0.985^400 ≈ 0.0048); PlotLossVsTime, PlotLossVsUpdates and
// PlotFinalVsStages write their files with them.
func TestReferenceLossesDrawnAndHeld(t *testing.T) {
	runs, curves := lossRuns()
	refs := WithReferenceLosses(ReferenceLoss{"unigram", 3.5}, ReferenceLoss{"bigram", 1}, ReferenceLoss{"tiny", 0.001})
	plain, n, err := curvePanel("x.svg", runs, curves, false, "loss", true, func(string) string { return "t" },
		func(p *CurvePoint) float64 { return p.Time }, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	with, m, err := curvePanel("x.svg", runs, curves, false, "loss", true, func(string) string { return "t" },
		func(p *CurvePoint) float64 { return p.Time }, []PlotOption{refs}, false)
	if err != nil {
		t.Fatal(err)
	}
	if m != n+3 {
		t.Errorf("legend entries %d with three references, %d without: want 3 more", m, n)
	}
	// Rounded as the plot rounds them (not constant-folded).
	low, high := 0.001, 3.5
	if lo, hi := low/referencePad, high*referencePad; with.Y.Min != lo || with.Y.Max != hi {
		t.Errorf("loss axis [%g, %g], want [%g, %g]: the references 2 %% inside its ends", with.Y.Min, with.Y.Max, lo, hi)
	}
	if plain.Y.Max != 2 {
		t.Errorf("loss axis without references ends at %g, want the curves' 2", plain.Y.Max)
	}
	dir := t.TempDir()
	if err := PlotLossVsTime(filepath.Join(dir, "a.svg"), runs, curves, refs); err != nil {
		t.Error(err)
	}
	if err := PlotLossVsUpdates(filepath.Join(dir, "b.svg"), runs, curves, refs); err != nil {
		t.Error(err)
	}
	if err := PlotFinalVsStages(filepath.Join(dir, "c.svg"), scalingRuns(), refs); err != nil {
		t.Error(err)
	}
}
