package results

import (
	"bytes"
	"errors"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func sameColor(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// TestMethodColorAcrossFigures: a method is drawn in one colour in a loss
// curve figure and in a final-loss figure, whatever other methods share
// the figure and in whatever order they come; LocalSGD's H = 5 gets the
// same shade in both.
func TestMethodColorAcrossFigures(t *testing.T) {
	// Figure 1: loss against time, PipeDream, LocalSGD H = 2 and 5, RPD.
	runs := []Run{
		{RunID: "a", Method: "rpd", Delta: 60, StepSize: 0.125},
		{RunID: "b", Method: "localsgd", LocalSteps: 2, StepSize: 0.125},
		{RunID: "c", Method: "localsgd", LocalSteps: 5, StepSize: 0.0625},
		{RunID: "d", Method: "pipedream", StepSize: 0.125},
	}
	var curves []CurvePoint
	for _, r := range runs {
		curves = append(curves, CurvePoint{RunID: r.RunID, Time: 0, Loss: 1}, CurvePoint{RunID: r.RunID, Time: 1, Loss: 0.5})
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time }, curveLoss(false))
	if err != nil {
		t.Fatal(err)
	}
	curveColor := map[string]color.Color{}
	for _, l := range lines {
		curveColor[l.Label] = l.Style.Color
	}

	// Figure 2: final loss against S, LocalSGD H = 5 alone and PipeDream.
	var final []Run
	for _, s := range []int32{2, 4} {
		final = append(final,
			Run{RunID: "p" + string(rune('0'+s)), Method: "pipedream", Stages: s, StepSize: 0.125, Outcome: OutcomeOK, FinalLoss: 0.3},
			Run{RunID: "l" + string(rune('0'+s)), Method: "localsgd", LocalSteps: 5, Stages: s, StepSize: 0.0625, Outcome: OutcomeOK, FinalLoss: 0.4})
	}
	series, err := finalVsStages(final)
	if err != nil {
		t.Fatal(err)
	}
	layers, _ := finalLayers(series)
	finalColor := map[string]color.Color{}
	for i, l := range layers {
		finalColor[series[i].Method] = l.Style.Color
	}

	if c := curveColor["pipedream, γ = 2^-3"]; c == nil || !sameColor(c, finalColor["pipedream"]) || !sameColor(c, MethodColor("pipedream")) {
		t.Errorf("pipedream: %v in the curves, %v in the final losses, want both %v", c, finalColor["pipedream"], MethodColor("pipedream"))
	}
	// H = 5 is shaded by its H alone, so it matches across the figures
	// although the first has two LocalSGD lines and the second one.
	h5 := shade(MethodColor("localsgd"), -0.45+0.9*math.Log2(5)/5)
	if c := curveColor["localsgd, H = 5, γ = 2^-4"]; c == nil || !sameColor(c, h5) || !sameColor(finalColor["localsgd"], h5) {
		t.Errorf("localsgd H = 5: %v in the curves, %v in the final losses, want %v", c, finalColor["localsgd"], h5)
	}
	if sameColor(curveColor["localsgd, H = 2, γ = 2^-3"], h5) {
		t.Error("LocalSGD's H = 2 and H = 5 share a shade")
	}
	// Distinct methods of the palette get distinct colours.
	seen := map[color.RGBA]string{}
	for _, m := range []string{"pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc", "rpd", "localsgd", "sync"} {
		c := methodColors[m]
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s share a colour", m, other)
		}
		seen[c] = m
	}
}

// TestShade: t = ±1 reaches black and white, t = 0 keeps the colour, and
// t = 0.5 is the midpoint (rounded) of each channel and white.
func TestShade(t *testing.T) {
	c := color.RGBA{0x00, 0x9e, 0x73, 0xff}
	for tt, want := range map[float64]color.RGBA{
		-1: {0, 0, 0, 0xff}, 1: {0xff, 0xff, 0xff, 0xff}, 0: c,
		0.5: {128, 207, 185, 0xff}, // (0+255)/2, (158+255)/2 = 206.5, (115+255)/2
	} {
		if got := shade(c, tt); !sameColor(got, want) {
			t.Errorf("shade(%v, %g) = %v, want %v", c, tt, got, want)
		}
	}
}

// TestLossRangeIgnoresDiverged: a run whose loss grows to 1e30 before it
// becomes NaN neither sets the loss axis nor is left out: its finite part
// is drawn (clipped) and its legend entry says it diverged.
func TestLossRangeIgnoresDiverged(t *testing.T) {
	runs := []Run{
		{RunID: "ok", Method: "pipedream", StepSize: 0.0625, Outcome: OutcomeOK, CostModel: CostUnit},
		{RunID: "bad", Method: "pipedream", StepSize: 1, Outcome: OutcomeDiverged, CostModel: CostUnit},
	}
	curves := []CurvePoint{
		{RunID: "ok", Time: 0, Loss: 4}, {RunID: "ok", Time: 1, Loss: 0.5}, {RunID: "ok", Time: 2, Loss: 0.1},
		{RunID: "bad", Time: 0, Loss: 4}, {RunID: "bad", Time: 1, Loss: 1e30}, {RunID: "bad", Time: 2, Loss: math.NaN()},
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time }, curveLoss(false))
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := lossRange(lines); lo != 0.1 || hi != 4 {
		t.Errorf("loss range [%g, %g], want the converging run's [0.1, 4]", lo, hi)
	}
	var labels []string
	for _, l := range lines {
		labels = append(labels, l.Label)
	}
	if len(lines) != 2 || labels[1] != "pipedream, γ = 2^0, diverged" || len(lines[1].XY) != 2 {
		t.Errorf("lines %q (diverged one with %d points), want the diverged run's two finite points labelled as diverged", labels, len(lines[len(lines)-1].XY))
	}
	// When every run diverged, the range is that of their finite losses.
	if lo, hi := lossRange(lines[1:]); lo != 4 || hi != 1e30 {
		t.Errorf("all diverged: range [%g, %g], want [4, 1e30]", lo, hi)
	}

	path := filepath.Join(t.TempDir(), "loss.svg")
	if err := PlotLossVsTime(path, runs, curves, WithClock(Clock{CostModel: CostUnit})); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"diverged", "unit time"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the figure does not show %q", want)
		}
	}
}

// TestFinalLegend: a final-loss line's legend gives its step size (the
// range when the chosen step varies with S) and the stage counts at which
// the method's runs all diverged.
func TestFinalLegend(t *testing.T) {
	runs := []Run{
		{RunID: "a", Method: "pipedream", Stages: 2, StepSize: 0.25, Outcome: OutcomeOK, FinalLoss: 0.3},
		{RunID: "b", Method: "pipedream", Stages: 4, StepSize: 0.03125, Outcome: OutcomeOK, FinalLoss: 0.3},
		{RunID: "c", Method: "pipedream", Stages: 8, StepSize: 0.03125, Outcome: OutcomeDiverged, FinalLoss: math.NaN()},
		{RunID: "d", Method: "rpd", Stages: 2, StepSize: 0.1, Outcome: OutcomeOK, FinalLoss: 0.3},
		{RunID: "e", Method: "rpd", Stages: 4, StepSize: 0.1, Outcome: OutcomeOK, FinalLoss: 0.3},
	}
	series, err := finalVsStages(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pipedream, γ = 2^-5…2^-2, diverged at S = 8", "rpd, γ = 0.1"}
	if len(series) != len(want) {
		t.Fatalf("%d lines, want %d", len(series), len(want))
	}
	for i, s := range series {
		if got := s.legend(); got != want[i] {
			t.Errorf("legend %q, want %q", got, want[i])
		}
	}
}

// TestClockString: the title names the GPU model's presets when known.
func TestClockString(t *testing.T) {
	for c, want := range map[Clock]string{
		{CostModel: CostUnit}: "unit time",
		{CostModel: CostGPU}:  "GPU model",
		{CostModel: CostGPU, Preset: "gpt-1.3b", GPU: "a100", Link: "nvlink"}: "GPU model: gpt-1.3b on a100 over nvlink",
	} {
		if got := c.String(); got != want {
			t.Errorf("%+v: %q, want %q", c, got, want)
		}
	}
	// A clock of another cost model than the rows' is not used.
	if got := clockOf(CostUnit, []PlotOption{WithClock(Clock{CostModel: CostGPU, Preset: "x", GPU: "y", Link: "z"})}); got.String() != "unit time" {
		t.Errorf("clockOf(unit, gpu clock) = %q, want unit time", got)
	}
}

// TestLossVsTimeLeavesOutRPD: RPD's sim_time counts iterations, so a time
// axis never shows it; the block-updates view does.
func TestLossVsTimeLeavesOutRPD(t *testing.T) {
	runs := []Run{
		{RunID: "pd", Method: "pipedream", StepSize: 0.125, Outcome: OutcomeOK, CostModel: CostUnit},
		{RunID: "rpd", Method: "rpd", Delta: 60, StepSize: 0.125, Outcome: OutcomeOK, CostModel: CostUnit},
	}
	var curves []CurvePoint
	for _, id := range []string{"pd", "rpd"} {
		curves = append(curves, CurvePoint{RunID: id, Time: 0, BlockUpdates: 0, Loss: 2}, CurvePoint{RunID: id, Time: 8, BlockUpdates: 8, Loss: 1})
	}
	dir := t.TempDir()
	timePath, updatesPath := filepath.Join(dir, "t.svg"), filepath.Join(dir, "u.svg")
	if err := PlotLossVsTime(timePath, runs, curves); err != nil {
		t.Fatal(err)
	}
	if err := PlotLossVsUpdates(updatesPath, runs, curves); err != nil {
		t.Fatal(err)
	}
	timeSVG, _ := os.ReadFile(timePath)
	updatesSVG, _ := os.ReadFile(updatesPath)
	if bytes.Contains(timeSVG, []byte("rpd")) || !bytes.Contains(timeSVG, []byte("pipedream")) {
		t.Error("the time plot shows RPD, or not PipeDream")
	}
	if !bytes.Contains(updatesSVG, []byte("rpd")) {
		t.Error("the block-updates plot leaves RPD out")
	}
	if err := PlotLossVsTime(timePath, runs[1:], curves); !errors.Is(err, ErrNoData) {
		t.Errorf("RPD alone on a time axis: %v, want ErrNoData", err)
	}
}
