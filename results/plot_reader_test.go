package results

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The reference curves of the delay plot span every stage count drawn,
// whatever order the rows come in: the table sorts by run id, a hash, so
// the last row is not the largest S (the curves of an earlier version
// stopped at S = 4 of 2..32).
func TestDelayCurvesSpanAllStages(t *testing.T) {
	stats := delayStats() // S = 2, 4, ..., 64
	for i := range stats {
		stats[i].RunID = fmt.Sprintf("run-%d", len(stats)-i) // S = 64 sorts first by id
	}
	for _, cv := range delayCurves(byStages(stats), []string{WindowSteady}) {
		if lo, hi := cv.xy[0].X, cv.xy[len(cv.xy)-1].X; lo != 2 || hi != 64 {
			t.Errorf("%s spans S = %g..%g, want 2..64", cv.label, lo, hi)
		}
	}
}

// Legend lines sort by the values of their settings, not as text: H = 2
// before H = 10 and γ = 2^-10 before γ = 2^-5 (as text both come the other
// way round).
func TestLegendOrderNumeric(t *testing.T) {
	var runs []Run
	for _, h := range []int32{30, 10, 2} {
		for _, step := range []float64{1.0 / 32, 1.0 / 1024} {
			runs = append(runs, Run{RunID: fmt.Sprintf("h%d-%g", h, step), Objective: "logistic", Method: "localsgd",
				Stages: 4, LocalSteps: h, StepSize: step, Outcome: OutcomeOK, FinalLoss: 1, CostModel: CostUnit})
		}
	}
	want := []string{
		"localsgd, H = 2, γ = 2^-10", "localsgd, H = 2, γ = 2^-5",
		"localsgd, H = 10, γ = 2^-10", "localsgd, H = 10, γ = 2^-5",
		"localsgd, H = 30, γ = 2^-10", "localsgd, H = 30, γ = 2^-5",
	}
	series, err := finalVsStages(runs)
	if err != nil {
		t.Fatal(err)
	}
	var final []string
	for _, s := range series {
		final = append(final, s.legend())
	}
	if !slices.Equal(final, want) {
		t.Errorf("final-loss legend %q, want %q", final, want)
	}

	var curves []CurvePoint
	for _, r := range runs {
		curves = append(curves, CurvePoint{RunID: r.RunID, Time: 0, Loss: 2}, CurvePoint{RunID: r.RunID, Time: 1, Loss: 1})
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time }, curveLoss(false))
	if err != nil {
		t.Fatal(err)
	}
	var loss []string
	for _, l := range lines {
		loss = append(loss, l.Label)
	}
	if !slices.Equal(loss, want) {
		t.Errorf("loss legend %q, want %q", loss, want)
	}
}

func TestCompareLabels(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"pd, δ = 8", "pd, δ = 60", -1},
		{"pd, γ = 2^-10", "pd, γ = 2^-5", -1},
		{"pd, γ = 2^-1", "pd, γ = 0.25", 1},
		{"localsgd", "pipedream", -1},
		{"pd", "pd, H = 2", -1},
		{"pd, H = 2", "pd, H = 2", 0},
		{"pd, cost = gpu", "pd, cost = unit", -1}, // not numbers: as text
	} {
		if got := compareLabels(tc.a, tc.b); got != tc.want {
			t.Errorf("compareLabels(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// The colour key of the regime map names the ratios its ends saturate at.
func TestRatioTicks(t *testing.T) {
	var labels []string
	for _, tk := range ratioTicks() {
		labels = append(labels, tk.Label)
	}
	if want := []string{"≤ 1/4", "1/2", "1", "2", "≥ 4"}; !slices.Equal(labels, want) { // 2^-2 .. 2^2
		t.Errorf("ticks %q, want %q", labels, want)
	}
}

// svgOf draws a figure to an SVG file and returns its text, where every
// title, label and legend entry appears as written.
func svgOf(t *testing.T, draw func(path string) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fig.svg")
	if err := draw(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Titles and axes name what a reader needs: the stage count shared by the
// runs, the model, GPU and link of the GPU clock, the level of a Gantt
// chart and its makespan, the clock of the regime map.
func TestTitlesNameTheSetting(t *testing.T) {
	gpu := Clock{CostModel: CostGPU, Preset: "gpt-1.3b", GPU: "a100", Link: "nvlink"}
	runs, curves := lossRuns() // all at S = 8
	for i := range runs {
		runs[i].CostModel = CostGPU
	}
	scaling := scalingRuns()
	for i := range scaling {
		scaling[i].CostModel = CostGPU
	}
	gantt := ScheduleMetric{ScheduleID: "pipedream/p4m12", Family: "pipedream", Ranks: 4, Microbatches: 12, CostModel: CostUnit, Level: LevelLockstep}
	for _, tc := range []struct {
		name string
		draw func(string) error
		want []string
	}{
		{"loss vs time", func(p string) error { return PlotLossVsTime(p, runs, curves, WithClock(gpu)) },
			[]string{"quadratic: loss vs simulated time, S = 8, GPU model: gpt-1.3b on a100 over nvlink", "simulated time (s)", "loss f(x)"}},
		{"final vs stages", func(p string) error { return PlotFinalVsStages(p, scaling, WithClock(gpu)) },
			[]string{"GPU model: gpt-1.3b on a100 over nvlink, budget 3180 s", "mean of 2 seeds"}},
		{"gantt", func(p string) error {
			return PlotGantt(p, pipedreamEvents(), []ScheduleMetric{gantt}, "pipedream/p4m12")
		},
			// The grid of docs/reference.md §1.2 runs 30 steps.
			[]string{"pipedream: 4 ranks, 12 microbatches, lockstep, unit time", "time (steps); makespan 30 steps", "box label: microbatch"}},
		{"schedules", func(p string) error { return PlotScheduleComparison(p, scheduleMetrics(), WithClock(gpu)) },
			[]string{"P = 4 ranks, M = 8 microbatches", "makespan (steps)", ">formula<"}},
	} {
		svg := svgOf(t, tc.draw)
		for _, w := range tc.want {
			if !strings.Contains(svg, w) {
				t.Errorf("%s: the figure does not show %q", tc.name, w)
			}
		}
	}
	lm := []Run{{RunID: "a", Objective: "charlm", Method: "pipedream", Stages: 4, StepSize: 0.0625, CostModel: CostUnit, Outcome: OutcomeOK}}
	lmCurves := []CurvePoint{{RunID: "a", Time: 0, Loss: 4.2}, {RunID: "a", Time: 10, Loss: 3.1}}
	if svg := svgOf(t, func(p string) error { return PlotLossVsTime(p, lm, lmCurves) }); !strings.Contains(svg, "nats per character") {
		t.Error("the language model's loss axis does not give its unit")
	}
}

// A method whose runs diverged at every S has no line in the final-loss
// plot, and its legend entry says so instead of leaving it out silently.
func TestFinalLegendAllDiverged(t *testing.T) {
	runs := scalingRuns()
	for i := range runs {
		if runs[i].Method == "rpd" {
			runs[i].Outcome, runs[i].FinalLoss = OutcomeDiverged, math.NaN()
		}
	}
	series, err := finalVsStages(runs)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(series, func(s stageSeries) bool { return s.Method == "rpd" }) {
		t.Error("the diverged method has a line")
	}
	want := []string{"rpd, diverged at every S: 2, 4, 8, 16, 32, 64, 128"}
	if got := lostMethods(runs, series); !slices.Equal(got, want) {
		t.Errorf("legend entries %q, want %q", got, want)
	}
	if svg := svgOf(t, func(p string) error { return PlotFinalVsStages(p, runs) }); !strings.Contains(svg, want[0]) {
		t.Error("the figure does not show the entry")
	}
}

// The log axes of the figures the experiments drew (ranges read off their
// plots) carry at least four labelled ticks: final losses of the scaling
// figure, of the remedies figure, the language model's loss.
func TestLogTicksOfFigures(t *testing.T) {
	for _, r := range [][2]float64{{0.35, 0.42}, {0.39, 0.69}, {1.3, 3.2}, {3.2, 4.4}, {5e-5, 80}} {
		n := 0
		for _, tk := range (LogTicks{}).Ticks(r[0], r[1]) {
			if tk.Label != "" {
				n++
			}
		}
		if n < minLogLabels {
			t.Errorf("[%g, %g]: %d labelled ticks, want at least %d", r[0], r[1], n, minLogLabels)
		}
	}
}

// A Gantt chart's key names the gradient all-reduce when the timeline has
// one, and the box labels only when some box was wide enough to carry one.
func TestGanttKey(t *testing.T) {
	wide := []TimelineEvent{
		{Rank: 0, Kind: "F", Microbatch: 0, Start: 0, End: 1},
		{Rank: 0, Kind: "B", Microbatch: 0, Start: 1, End: 2},
		{Rank: 0, Index: -1, Kind: "REDUCE_GRAD", Microbatch: -1, Start: 2, End: 3},
	}
	svg := svgOf(t, func(p string) error { return Gantt{Title: "t", Unit: "steps", Events: wide}.Plot(p) })
	for _, w := range []string{"gradient all-reduce", "box label: microbatch", "makespan 3 steps"} {
		if !strings.Contains(svg, w) {
			t.Errorf("wide boxes: the chart lacks %q", w)
		}
	}
	// 2000 boxes over 9 inches: none is wide enough for its label.
	var narrow []TimelineEvent
	for i := range 2000 {
		narrow = append(narrow, TimelineEvent{Rank: 0, Index: int32(i), Kind: "F", Microbatch: int32(i), Start: float64(i), End: float64(i + 1)})
	}
	svg = svgOf(t, func(p string) error { return Gantt{Title: "t", Unit: "steps", Events: narrow}.Plot(p) })
	if strings.Contains(svg, "box label") || strings.Contains(svg, "all-reduce") {
		t.Error("narrow boxes without labels: the key still explains labels, or names an all-reduce there is none of")
	}
}

// A title too long for the figure is set smaller until it fits, down to
// minTitleSize points; a short one keeps the default size.
func TestFitTitle(t *testing.T) {
	short := newPlot("short", "", "")
	size := short.Title.TextStyle.Font.Size
	fitTitle(short, plotWidth)
	if short.Title.TextStyle.Font.Size != size {
		t.Errorf("a short title shrank from %v to %v", size, short.Title.TextStyle.Font.Size)
	}
	long := newPlot("logistic: final loss vs pipeline stages, GPU model: gpt-1.3b on a100 over nvlink, budget 20.2 s, three seeds", "", "")
	fitTitle(long, plotWidth)
	if w := long.Title.TextStyle.Width(long.Title.Text); w > plotWidth || long.Title.TextStyle.Font.Size >= size {
		t.Errorf("a long title is %v wide at %v, want it inside %v at a smaller size than %v", w, long.Title.TextStyle.Font.Size, plotWidth, size)
	}
}

// Over the eighteen decades of the full pd-vs-rpd figure (losses from 1e-10
// to 1e8) an unlabelled tick at every integer multiple would make a solid
// bar of the axis: only the 19 powers of ten are marked, every second one
// labelled.
func TestLogTicksWideAxis(t *testing.T) {
	ticks := LogTicks{}.Ticks(1e-10, 1e8)
	labelled := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			labelled++
		}
	}
	if len(ticks) != 19 || labelled != 10 {
		t.Errorf("%d ticks, %d labelled; want the 19 powers of ten, 10 labelled (1e-10, 1e-8, ..., 1e8)", len(ticks), labelled)
	}
}
