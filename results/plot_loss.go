package results

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotLossVsTime draws, to path (.png or .svg), the loss of each run against
// simulated time, from the runs' curve points, on a log loss axis. If any
// run is marked Selected only the selected runs are drawn. RPD's runs are
// left out: RPD has no timeline, and its sim_time is null. Each method has
// its colour in every figure (MethodColor); lines of one method are told
// apart by shade and dash, LocalSGD's by H. The legend names each line by
// its method, the settings that differ between runs of that method and its
// step size. The loss axis spans the finite losses of the runs that did not
// diverge: a diverged run is drawn up to its last finite loss, clipped at
// the axis, and marked "diverged" in the legend. A zero or negative loss is
// an ErrLogAxis error; runs must share one cost model. The title names the
// objective, the stage count when the runs share one, and the clock
// (WithClock adds the GPU model's presets); the loss axis is f(x), or the
// language model's cross-entropy in nats per character.
func PlotLossVsTime(path string, runs []Run, curves []CurvePoint, opts ...PlotOption) error {
	runs = slices.DeleteFunc(slices.Clone(runs), func(r Run) bool { return isRPD(&r) })
	return plotCurves(path, runs, curves, "loss vs simulated time", true,
		func(costModel string) string { return "simulated time (" + timeUnit(costModel) + ")" },
		func(p *CurvePoint) float64 { return p.Time }, opts)
}

// PlotLossVsUpdates draws, to path, the loss of each run against the number
// of block updates applied: the view in which PipeDream and RPD at several
// delay bounds δ are compared. Block updates are the same under every
// clock, so the title names none. Run selection, line styles, diverged runs
// and errors are as for PlotLossVsTime.
func PlotLossVsUpdates(path string, runs []Run, curves []CurvePoint, opts ...PlotOption) error {
	return plotCurves(path, runs, curves, "loss vs block updates", false,
		func(string) string { return "block updates" },
		func(p *CurvePoint) float64 { return float64(p.BlockUpdates) }, opts)
}

// curveLine is one line of a loss plot, ready to draw.
type curveLine struct {
	Label    string
	Style    lineStyle
	XY       plotter.XYs // up to the first non-finite loss; the seeds' mean where there are several
	Diverged bool
	// Low and High are the seed band, the lowest and highest seed at each
	// point of XY (nil for one seed).
	Low, High plotter.XYs
}

func plotCurves(path string, runs []Run, curves []CurvePoint, what string, timed bool,
	xLabel func(costModel string) string, x func(*CurvePoint) float64, opts []PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	runs = plotted(runs)
	if len(runs) == 0 {
		return fmt.Errorf("results: %s: no runs: %w", path, ErrNoData)
	}
	costModels := distinct(runs, func(r *Run) string { return r.CostModel })
	if len(costModels) > 1 {
		return fmt.Errorf("results: %s: runs mix cost models %v on one time axis", path, costModels)
	}
	validated := hasValidation(runs, curves)
	sets := [][]Run{runs}
	if len(runs) > maxPanelLines {
		if sets = byOptimizer(runs); len(sets) == 1 {
			sets = [][]Run{runs}
		}
	}
	var panels []*plot.Plot
	var entries []int
	for _, set := range sets {
		p, n, err := curvePanel(path, set, curves, validated, what, timed, xLabel, x, opts, len(sets) > 1)
		if err != nil {
			return err
		}
		panels, entries = append(panels, p), append(entries, n)
	}
	if len(panels) == 1 {
		return saveWithLegend(path, panels[0], entries[0])
	}
	return saveStacked(path, panels, entries)
}

// curvePanel draws the loss curves of runs on one pair of axes and returns
// the plot and its legend's length; split names the runs' optimizer in the
// title, for a panel of small multiples.
func curvePanel(path string, runs []Run, curves []CurvePoint, validated bool, what string, timed bool,
	xLabel func(costModel string) string, x func(*CurvePoint) float64, opts []PlotOption, split bool) (*plot.Plot, int, error) {
	costModels := distinct(runs, func(r *Run) string { return r.CostModel })
	lines, err := curveLines(runs, curves, x, curveLoss(validated))
	if err != nil {
		return nil, 0, fmt.Errorf("results: %s: %w", path, err)
	}
	if len(lines) == 0 {
		return nil, 0, fmt.Errorf("results: %s: no finite curve points for %d runs: %w", path, len(runs), ErrNoData)
	}

	title := objectiveTitle(runs, opts) + ": " + what
	if stages := distinct(runs, func(r *Run) string { return strconv.Itoa(int(r.Stages)) }); len(stages) == 1 && runs[0].Stages > 0 {
		title += ", S = " + stages[0]
	}
	if timed {
		title += ", " + clockOf(costModels[0], opts).String()
	}
	if split {
		title += ": " + optimizerName(runs[0].Optimizer)
	}
	yLabel := lossLabel(runs)
	if validated {
		yLabel = "validation " + yLabel
	}
	p := newPlot(title, xLabel(costModels[0]), yLabel)
	setLog(&p.Y)
	p.X.Tick.Marker = LinearTicks{}
	for _, l := range lines {
		if l.Low == nil {
			continue
		}
		band, err := bandPolygon(l)
		if err != nil {
			return nil, 0, fmt.Errorf("results: %s: %s: %w", path, l.Label, err)
		}
		p.Add(band)
	}
	for _, l := range lines {
		line, err := plotter.NewLine(l.XY)
		if err != nil {
			return nil, 0, fmt.Errorf("results: %s: %s: %w", path, l.Label, err)
		}
		line.Color = l.Style.Color
		line.Dashes = l.Style.Dashes
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(l.Label, line)
	}
	p.Y.Min, p.Y.Max = lossRange(lines)
	return p, len(lines) + addReferenceLosses(p, opts), nil
}

// bandPolygon is a line's seed band, filled in its colour, faint.
func bandPolygon(l curveLine) (*plotter.Polygon, error) {
	ring := slices.Clone(l.Low)
	for i := len(l.High) - 1; i >= 0; i-- {
		ring = append(ring, l.High[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	r, g, b, _ := l.Style.Color.RGBA()
	poly.Color = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x38}
	poly.LineStyle.Width = 0
	return poly, nil
}

// lossLabel names the loss axis: f(x) for the convex objectives, and the
// unit of the language model's cross-entropy.
func lossLabel(runs []Run) string {
	if !slices.ContainsFunc(runs, func(r Run) bool { return !isLanguageModel(r.Objective) }) {
		return "loss (cross-entropy, nats per character)"
	}
	return "loss f(x)"
}

// hasValidation reports whether every curve point of runs has a finite,
// positive validation loss (an objective with held-out data, the LM on its
// text; NULL reads as NaN, and a zero value is none):
// such a plot draws the validation loss, the loss its runs are judged by
// (time to target, Settings.TargetLoss).
func hasValidation(runs []Run, curves []CurvePoint) bool {
	ids := map[string]bool{}
	for _, r := range runs {
		ids[r.RunID] = true
	}
	n := 0
	for _, p := range curves {
		if !ids[p.RunID] {
			continue
		}
		if !(p.ValidationLoss > 0) || math.IsInf(p.ValidationLoss, 0) {
			return false
		}
		n++
	}
	return n > 0
}

// curveLoss is the loss a plot draws of a curve point.
func curveLoss(validated bool) func(*CurvePoint) float64 {
	if validated {
		return func(p *CurvePoint) float64 { return p.ValidationLoss }
	}
	return func(p *CurvePoint) float64 { return p.Loss }
}

// isLanguageModel reports whether objective names the character language
// model, whose loss is a cross-entropy in nats.
func isLanguageModel(objective string) bool { return objective == "charlm" }

// curveLines gathers, styles and labels the lines of a loss plot: runs in
// legend order, each with its points sorted by x up to its first
// non-finite loss; runs without a finite point are left out. Runs that
// differ only in their seed (replicates of one setting) make one line, the
// mean over the seeds at each x they all logged, with a band from the
// lowest to the highest seed (curveLine.Low, High): the seed band.
func curveLines(runs []Run, curves []CurvePoint, x, loss func(*CurvePoint) float64) ([]curveLine, error) {
	slices.SortFunc(runs, compareSettings)
	byRun := map[string][]CurvePoint{}
	for _, r := range runs {
		byRun[r.RunID] = nil
	}
	for _, p := range curves {
		if pts, ok := byRun[p.RunID]; ok {
			byRun[p.RunID] = append(pts, p)
		}
	}
	points := func(r Run) (plotter.XYs, error) {
		pts := byRun[r.RunID]
		slices.SortStableFunc(pts, func(a, b CurvePoint) int { return cmp.Compare(x(&a), x(&b)) })
		var xy plotter.XYs
		for _, pt := range pts {
			y := loss(&pt)
			if math.IsNaN(y) || math.IsInf(y, 0) {
				break
			}
			if y <= 0 {
				return nil, fmt.Errorf("run %q: loss %g at x = %g: %w", r.RunID, y, x(&pt), ErrLogAxis)
			}
			xy = append(xy, plotter.XY{X: x(&pt), Y: y})
		}
		return xy, nil
	}
	groups := seedGroups(runs)
	reps := make([]Run, len(groups))
	for i, g := range groups {
		reps[i] = g[0]
	}
	labels := runLabels(reps)
	var lines []curveLine
	var methods []string
	var hs []int32
	for i, g := range groups {
		var seeds []plotter.XYs
		diverged := false
		for _, r := range g {
			xy, err := points(r)
			if err != nil {
				return nil, err
			}
			diverged = diverged || r.Diverged()
			if len(xy) > 0 {
				seeds = append(seeds, xy)
			}
		}
		if len(seeds) == 0 {
			continue
		}
		l := curveLine{Label: labels[i], XY: seeds[0], Diverged: diverged}
		if len(g) > 1 {
			l.XY, l.Low, l.High = seedBand(seeds)
			l.Label += fmt.Sprintf(", mean of %d seeds", len(seeds))
		}
		if l.Diverged {
			l.Label += ", diverged"
		}
		if len(l.XY) == 0 {
			continue
		}
		lines = append(lines, l)
		methods = append(methods, g[0].Method)
		hs = append(hs, g[0].LocalSteps)
	}
	keys, count := lineKeys(methods, hs)
	for i, k := range keys {
		lines[i].Style = styleOf(k, count[k.method])
	}
	return lines, nil
}

// seedGroups splits runs, in their order, into groups that differ only in
// their seed (and replicate and run id).
func seedGroups(runs []Run) [][]Run {
	key := func(r Run) Run {
		r.RunID, r.Seed, r.Replicate = "", 0, 0
		r.FinalLoss, r.SimTime, r.BlockUpdates, r.WallSeconds, r.Outcome = 0, 0, 0, 0, ""
		r.TimeToTarget, r.UpdatesToTarget, r.LossAtBudget, r.HeldOutLoss = 0, 0, 0, 0
		r.TotalMicrobatches = 0
		return r
	}
	var out [][]Run
	at := map[Run]int{}
	for _, r := range runs {
		k := key(r)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

// seedBand is the mean of the seeds' curves at each point all of them
// logged (the i-th record of each, at one x: replicates of one setting
// log on one grid), and the lowest and highest seed there.
func seedBand(seeds []plotter.XYs) (mean, low, high plotter.XYs) {
	n := len(seeds[0])
	for _, s := range seeds[1:] {
		n = min(n, len(s))
	}
	for i := 0; i < n; i++ {
		x := seeds[0][i].X
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		same := true
		for _, s := range seeds {
			same = same && s[i].X == x
			sum += s[i].Y
			lo, hi = math.Min(lo, s[i].Y), math.Max(hi, s[i].Y)
		}
		if !same {
			break
		}
		mean = append(mean, plotter.XY{X: x, Y: sum / float64(len(seeds))})
		low, high = append(low, plotter.XY{X: x, Y: lo}), append(high, plotter.XY{X: x, Y: hi})
	}
	return mean, low, high
}

// lossRange is the loss axis of a plot: from the smallest to the largest
// loss of the lines that did not diverge, or of all lines when every one
// diverged, so that a diverging loss never stretches the axis.
func lossRange(lines []curveLine) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pass := range []bool{false, true} {
		for _, l := range lines {
			if l.Diverged && !pass {
				continue
			}
			for _, pt := range slices.Concat(l.XY, l.Low, l.High) {
				lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
			}
		}
		if lo <= hi {
			return lo, hi
		}
	}
	return lo, hi
}

// plotted returns the runs a plot draws: the selected ones if any run is
// marked Selected, otherwise all; always a copy.
func plotted(runs []Run) []Run {
	var sel []Run
	for _, r := range runs {
		if r.Selected {
			sel = append(sel, r)
		}
	}
	if sel != nil {
		return sel
	}
	return slices.Clone(runs)
}

// compareSettings orders runs for legends: by method and optimizer, then
// by the settings that tell runs of one method apart, numbers by value,
// then by run id.
func compareSettings(a, b Run) int {
	return cmp.Or(
		cmp.Compare(a.Method, b.Method),
		cmp.Compare(a.Optimizer, b.Optimizer),
		cmp.Compare(a.Stages, b.Stages),
		cmp.Compare(a.Delta, b.Delta),
		cmp.Compare(a.Replicas, b.Replicas),
		cmp.Compare(a.LocalSteps, b.LocalSteps),
		cmp.Compare(a.StepSize, b.StepSize),
		cmp.Compare(a.BatchSize, b.BatchSize),
		cmp.Compare(a.Seed, b.Seed),
		cmp.Compare(a.RunID, b.RunID),
	)
}
