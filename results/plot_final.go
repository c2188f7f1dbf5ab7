package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotFinalVsStages draws, to path, the final loss of each method against
// the number of pipeline stages, both axes logarithmic. If any run is marked
// Selected only the selected runs count: the step size the recorded rule
// chose per group (experiments.SelectSteps; by default the best final loss
// averaged over seeds). Each point is the mean raw final loss f(x) (no f*
// subtracted) over the seeds of one setting at one S, drawn with a bar from
// the lowest to the highest seed's final loss when it has two seeds or more;
// the y label says how many seeds the points average. Diverged runs are left
// out, and a setting whose runs all diverged at some S has no point there.
// A method whose runs differ at one S in anything but the seed (H, δ, step
// size when nothing is selected, ...) gets a line per value, named in the
// legend. With bars, the lines of the methods are shifted apart along S by
// a few percent so that bars at one S do not hide each other.
// Each method has its colour and point shape in every figure (MethodColor),
// LocalSGD's lines shaded by H; the legend gives each line's step size
// ("γ = 2^-5", or the range "γ = 2^-8…2^-5" when the chosen step varies
// with S) and the stage counts at which all its runs diverged; a method
// whose runs diverged at every S has a legend entry that says so, and no
// line. The S axis
// is labelled at the stage counts run. The title names the clock
// (WithClock adds the GPU model's presets).
// A non-positive final loss or stage count is an ErrLogAxis error.
func PlotFinalVsStages(path string, runs []Run, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	series, err := finalVsStages(runs)
	if err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	sets := [][]Run{runs}
	if len(series) > maxPanelLines {
		if sets = byOptimizer(plotted(runs)); len(sets) == 1 {
			sets = [][]Run{runs}
		}
	}
	if len(sets) == 1 {
		p, n, err := finalPanel(path, runs, series, false, opts)
		if err != nil {
			return err
		}
		return saveWithLegend(path, p, n)
	}
	var panels []*plot.Plot
	var entries []int
	for _, set := range sets {
		series, err := finalVsStages(set)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		p, n, err := finalPanel(path, set, series, true, opts)
		if err != nil {
			return err
		}
		panels, entries = append(panels, p), append(entries, n)
	}
	return saveStacked(path, panels, entries)
}

// finalPanel draws the final loss of series (those of runs) against S on
// one pair of axes, and returns the plot and its legend's length; split
// names the runs' optimizer in the title, for a panel of small multiples.
func finalPanel(path string, runs []Run, series []stageSeries, split bool, opts []PlotOption) (*plot.Plot, int, error) {
	var kept []Run
	for _, r := range plotted(runs) {
		if !r.Diverged() {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 { // a panel whose runs all diverged: its title still names them
		kept = plotted(runs)
	}

	title := objectiveTitle(kept, opts) + ": final loss vs pipeline stages, " +
		clockOf(kept[0].CostModel, opts).String()
	if budgets := distinct(kept, func(r *Run) string { return formatTime(r.TimeBudget, r.CostModel) }); len(budgets) == 1 && kept[0].TimeBudget > 0 {
		title += ", budget " + budgets[0]
	}
	if split {
		title += ": " + optimizerName(kept[0].Optimizer)
	}
	layers, seeds := finalLayers(series)
	yLabel, xLabel := "final loss f(x), one seed", "pipeline stages S"
	if seeds != "" {
		yLabel = "final loss f(x): mean of " + seeds + " seeds, bar min–max"
		xLabel = "pipeline stages S (lines shifted apart slightly)"
	}
	p := newPlot(title, xLabel, yLabel)
	setLog(&p.X)
	setLog(&p.Y)
	p.X.Tick.Marker = stageTicks(series)
	for _, l := range layers {
		line, points, err := plotter.NewLinePoints(l.Points)
		if err != nil {
			return nil, 0, fmt.Errorf("results: %s: %s: %w", path, l.Label, err)
		}
		line.Color = l.Style.Color
		line.Dashes = l.Style.Dashes
		line.Width = vg.Points(1.5)
		points.Color = l.Style.Color
		points.Shape = plotutil.Shape(l.Style.Shape)
		p.Add(line, points)
		if len(l.Bars) > 0 {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{l.Bars, l.Errors})
			if err != nil {
				return nil, 0, fmt.Errorf("results: %s: %s: %w", path, l.Label, err)
			}
			eb.Color = l.Style.Color
			eb.Width = vg.Points(1)
			p.Add(eb)
		}
		p.Legend.Add(l.Label, line, points)
	}
	lost := lostMethods(plotted(runs), series)
	for _, m := range lost {
		p.Legend.Add(m) // no line to show: the entry says why
	}
	// Room for the points' glyphs at the ends of both axes, then above
	// the data for the legend.
	refs := addReferenceLosses(p, opts)
	p.X.Min, p.X.Max = logMargin(p.X.Min, p.X.Max)
	p.Y.Min, p.Y.Max = logMargin(p.Y.Min, p.Y.Max)
	p.Legend.Left = true
	return p, len(layers) + len(lost) + refs, nil
}

// stageSeries is one line of the final-loss-vs-stages plot: a method (and
// the settings that tell its lines apart) over the stage counts.
type stageSeries struct {
	Label  string // the method and the settings that tell its lines apart
	Method string
	H      int32        // LocalSGD's local steps when they split the method into lines, else 0
	Points []stagePoint // by Stages, ascending
	// Diverged lists the stage counts at which the method ran but every
	// one of its plotted runs diverged.
	Diverged []int32
}

// stagePoint summarises the final losses of the seeds of one setting at one
// stage count.
type stagePoint struct {
	Stages         int32
	Seeds          int       // runs averaged (those that did not diverge)
	Mean, Min, Max float64   // of their final losses
	Steps          []float64 // the distinct step sizes of those runs, ascending
	// Bound is the runs' SelectionBound when one of them has one: their
	// step is at an edge of its grid (or the grid's only step).
	Bound string
}

// lineSettings are the settings, besides the method, that may tell lines of
// the final-loss plot apart, in the order they are tried. Step size comes
// last: with a step selected per group it is one value at each S of a line.
var lineSettings = []struct {
	name  string
	value func(*Run) string
}{
	{"", func(r *Run) string { return r.Objective }},
	{"", func(r *Run) string { name, _, _ := strings.Cut(r.Optimizer, " "); return name }},
	{"", func(r *Run) string { return r.Optimizer }}, // settings of one optimizer name
	{"cost = ", func(r *Run) string { return r.CostModel }},
	{"budget = ", func(r *Run) string { return strconv.FormatFloat(r.TimeBudget, 'g', -1, 64) }},
	{"n = ", func(r *Run) string { return strconv.Itoa(int(r.N)) }},
	{"d = ", func(r *Run) string { return strconv.Itoa(int(r.D)) }},
	{"B = ", func(r *Run) string { return strconv.Itoa(int(r.BatchSize)) }},
	{"H = ", func(r *Run) string { return strconv.Itoa(int(r.LocalSteps)) }},
	{"R = ", func(r *Run) string { return strconv.Itoa(int(r.Replicas)) }},
	{"δ = ", func(r *Run) string { return strconv.Itoa(int(r.Delta)) }},
	{"N = ", func(r *Run) string { return strconv.Itoa(int(r.TotalMicrobatches)) }},
	{"γ = ", func(r *Run) string { return formatStep(r.StepSize) }},
}

// finalVsStages computes what PlotFinalVsStages draws: the selected runs
// (all runs if none is selected) that did not diverge, grouped into lines
// and, per line, into one point per stage count. A line is a method plus
// each setting that takes several values among the method's runs at one S
// once the settings before it are fixed, so that a point only averages runs
// that differ in their seed. Lines are sorted by label, numbers by value
// (compareLabels: H = 2 before H = 10, γ = 2^-10 before 2^-5).
func finalVsStages(runs []Run) ([]stageSeries, error) {
	runs = plotted(runs)
	var kept []Run
	for _, r := range runs {
		if r.Diverged() {
			continue
		}
		if r.Stages <= 0 || !positive(r.FinalLoss) {
			return nil, fmt.Errorf("run %q: stages %d, final loss %g: %w", r.RunID, r.Stages, r.FinalLoss, ErrLogAxis)
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no run that did not diverge among %d: %w", len(runs), ErrNoData)
	}

	// Choose, per method, the settings that split it into lines.
	keys := make([][]string, len(kept)) // per run: method, then the chosen settings' labels
	for i := range kept {
		keys[i] = []string{kept[i].Method}
	}
	for _, s := range lineSettings {
		// Group by (current key, S) and see which methods have a group
		// in which the setting takes more than one value.
		seen := map[string]string{}
		split := map[string]bool{}
		for i := range kept {
			g := strings.Join(keys[i], "\x00") + "\x00" + strconv.Itoa(int(kept[i].Stages))
			v := s.value(&kept[i])
			if w, ok := seen[g]; ok && w != v {
				split[kept[i].Method] = true
			}
			seen[g] = v
		}
		for i := range kept {
			if split[kept[i].Method] {
				keys[i] = append(keys[i], s.name+s.value(&kept[i]))
			}
		}
	}

	type pointKey struct {
		label  string
		stages int32
	}
	losses := map[pointKey][]float64{}
	steps := map[pointKey][]float64{}
	bounds := map[pointKey]string{}
	first := map[string]*Run{} // a run of each line, for its method
	hOf := map[string]int32{}  // the line's H when all its runs share one, else -1
	for i := range kept {
		label := strings.Join(keys[i], ", ")
		k := pointKey{label, kept[i].Stages}
		losses[k] = append(losses[k], kept[i].FinalLoss)
		if b := kept[i].SelectionBound; b != "" && kept[i].Selected {
			bounds[k] = max(bounds[k], b) // any order, as long as it is fixed
		}
		if !slices.Contains(steps[k], kept[i].StepSize) {
			steps[k] = append(steps[k], kept[i].StepSize)
		}
		if first[label] == nil {
			first[label] = &kept[i]
			hOf[label] = kept[i].LocalSteps
		} else if hOf[label] != kept[i].LocalSteps {
			hOf[label] = -1
		}
	}
	byLabel := map[string][]stagePoint{}
	for k, ls := range losses {
		// Sum in a fixed order so the mean does not depend on the rows'.
		slices.Sort(ls)
		var sum float64
		for _, l := range ls {
			sum += l
		}
		slices.Sort(steps[k])
		byLabel[k.label] = append(byLabel[k.label], stagePoint{Stages: k.stages, Seeds: len(ls),
			Mean: sum / float64(len(ls)), Min: ls[0], Max: ls[len(ls)-1], Steps: steps[k], Bound: bounds[k]})
	}
	diverged := divergedStages(runs, kept)
	var out []stageSeries
	for _, label := range slices.SortedFunc(maps.Keys(byLabel), compareLabels) {
		pts := byLabel[label]
		slices.SortFunc(pts, func(a, b stagePoint) int { return cmp.Compare(a.Stages, b.Stages) })
		r := first[label]
		series := stageSeries{Label: label, Method: r.Method, H: max(0, hOf[label]), Points: pts, Diverged: diverged[r.Method]}
		out = append(out, series)
	}
	return out, nil
}

// divergedStages returns, per method, the stage counts at which the method
// has runs but none in kept (all diverged), ascending.
func divergedStages(runs, kept []Run) map[string][]int32 {
	type at struct {
		method string
		stages int32
	}
	ok := map[at]bool{}
	for _, r := range kept {
		ok[at{r.Method, r.Stages}] = true
	}
	out := map[string][]int32{}
	for _, r := range runs {
		if k := (at{r.Method, r.Stages}); !ok[k] && !slices.Contains(out[r.Method], r.Stages) {
			out[r.Method] = append(out[r.Method], r.Stages)
		}
	}
	for _, s := range out {
		slices.Sort(s)
	}
	return out
}

// lostMethods returns, for each method of runs that has no line in series
// because all its runs diverged, the legend entry that says so ("rpd,
// diverged at every S: 2, 4, 8"), sorted by method.
func lostMethods(runs []Run, series []stageSeries) []string {
	stages := map[string][]int32{}
	for _, r := range runs {
		if !slices.Contains(stages[r.Method], r.Stages) {
			stages[r.Method] = append(stages[r.Method], r.Stages)
		}
	}
	var out []string
	for _, m := range slices.Sorted(maps.Keys(stages)) {
		if slices.ContainsFunc(series, func(s stageSeries) bool { return s.Method == m }) {
			continue
		}
		ss := stages[m]
		slices.Sort(ss)
		var names []string
		for _, st := range ss {
			names = append(names, strconv.Itoa(int(st)))
		}
		out = append(out, m+", diverged at every S: "+strings.Join(names, ", "))
	}
	return out
}

// legend is a final-loss line's legend entry: its label, its step size (one
// value, or the range of the steps chosen at the different S), where the
// chosen step was at an edge of its grid, and the stage counts at which all
// its method's runs diverged. A step at the grid's smallest step at every S
// reads "γ ≤ 2^-8" (the best step may be smaller still), at the largest
// "γ ≥ 2^-2", a grid of one step "γ = 2^-4 (fixed)"; a line whose steps are
// at an edge at some S only names them: "γ at grid bottom at S = 4".
func (s stageSeries) legend() string {
	var lo, hi float64
	at := map[string][]string{}
	for i, pt := range s.Points {
		if i == 0 || pt.Steps[0] < lo {
			lo = pt.Steps[0]
		}
		if i == 0 || pt.Steps[len(pt.Steps)-1] > hi {
			hi = pt.Steps[len(pt.Steps)-1]
		}
		at[pt.Bound] = append(at[pt.Bound], strconv.Itoa(int(pt.Stages)))
	}
	label := s.Label
	if !strings.Contains(label, "γ = ") {
		rel := "= "
		if len(at) == 1 {
			switch {
			case len(at[BoundLower]) > 0:
				rel = "≤ "
			case len(at[BoundUpper]) > 0:
				rel = "≥ "
			}
		}
		label += ", γ " + rel + formatStep(lo)
		if hi != lo {
			label += "…" + formatStep(hi)
		}
		if len(at) == 1 && len(at[BoundFixed]) > 0 {
			label += " (fixed)"
		}
	}
	if len(at) > 1 || strings.Contains(s.Label, "γ = ") {
		for _, b := range []struct{ bound, text string }{{BoundLower, "γ at grid bottom"}, {BoundUpper, "γ at grid top"}, {BoundFixed, "γ fixed"}} {
			if st := at[b.bound]; len(st) > 0 {
				label += ", " + b.text + " at S = " + strings.Join(st, ", ")
			}
		}
	}
	if len(s.Diverged) > 0 {
		var ss []string
		for _, st := range s.Diverged {
			ss = append(ss, strconv.Itoa(int(st)))
		}
		label += ", diverged at S = " + strings.Join(ss, ", ")
	}
	return label
}

// stageTicks labels the stage axis at the stage counts of series.
func stageTicks(series []stageSeries) plot.ConstantTicks {
	var stages []int32
	for _, s := range series {
		for _, pt := range s.Points {
			stages = append(stages, pt.Stages)
		}
	}
	return stageCountTicks(stages)
}

// stageCountTicks labels a stage axis at each distinct stage count of
// stages, the counts the figure ran, rather than at 1-2-5 values it did not.
func stageCountTicks(stages []int32) plot.ConstantTicks {
	stages = slices.Clone(stages)
	slices.Sort(stages)
	stages = slices.Compact(stages)
	ticks := make(plot.ConstantTicks, len(stages))
	for i, st := range stages {
		ticks[i] = plot.Tick{Value: float64(st), Label: strconv.Itoa(int(st))}
	}
	return ticks
}

// finalLayer is what PlotFinalVsStages hands the plotters for one line:
// its points (x the stage count, shifted when there are bars; y the mean)
// and, at the points with two seeds or more, bars whose Low and High are
// the distances from the mean down to the lowest and up to the highest
// seed's final loss (gonum's YErrors convention).
type finalLayer struct {
	Label  string // the legend entry (stageSeries.legend)
	Style  lineStyle
	Points plotter.XYs
	Bars   plotter.XYs
	Errors plotter.YErrors
}

// barShift is the distance, in octaves of S, between the neighbouring lines
// of a plot with bars, and barSpread the most that all of them span: many
// lines are set closer, so that no line strays towards the next S.
const (
	barShift  = 0.08
	barSpread = 0.5
)

// finalLayers lays out series for drawing. seeds is "" when no point has
// more than one seed (no bars, no shift), otherwise the seed count of the
// points ("3", or "2–3" when it varies).
func finalLayers(series []stageSeries) (layers []finalLayer, seeds string) {
	minSeeds, maxSeeds := math.MaxInt, 0
	for _, s := range series {
		for _, pt := range s.Points {
			minSeeds, maxSeeds = min(minSeeds, pt.Seeds), max(maxSeeds, pt.Seeds)
		}
	}
	bars := maxSeeds > 1
	if bars {
		seeds = strconv.Itoa(maxSeeds)
		if minSeeds != maxSeeds {
			seeds = strconv.Itoa(minSeeds) + "–" + seeds
		}
	}
	methods := make([]string, len(series))
	hs := make([]int32, len(series))
	for i, s := range series {
		methods[i], hs[i] = s.Method, s.H
	}
	keys, count := lineKeys(methods, hs)
	for i, s := range series {
		// Spread the lines symmetrically around each S.
		shift := 1.0
		if bars {
			step := barShift
			if n := float64(len(series) - 1); n*step > barSpread {
				step = barSpread / n
			}
			shift = math.Exp2(step * (float64(i) - float64(len(series)-1)/2))
		}
		l := finalLayer{Label: s.legend(), Style: styleOf(keys[i], count[keys[i].method])}
		for _, pt := range s.Points {
			x := float64(pt.Stages) * shift
			l.Points = append(l.Points, plotter.XY{X: x, Y: pt.Mean})
			if pt.Seeds > 1 {
				l.Bars = append(l.Bars, plotter.XY{X: x, Y: pt.Mean})
				l.Errors = append(l.Errors, struct{ Low, High float64 }{pt.Mean - pt.Min, pt.Max - pt.Mean})
			}
		}
		layers = append(layers, l)
	}
	return layers, seeds
}
