package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// TargetBar is one bar of the time-to-target chart: a method and
// optimizer at one stage count, over its selected runs (one per seed).
type TargetBar struct {
	Method, Optimizer string
	Stages            int32
	// Mean, Min and Max are over the seeds that reached the target;
	// Reached of Seeds did.
	Mean, Min, Max float64
	Reached, Seeds int
	// Bound is the selected runs' SelectionBound when it is lower or
	// upper: their step is at an edge of its grid.
	Bound string
}

// TargetBars groups the selected runs (all runs when none is selected) by
// method, optimizer and stage count, in that order, and summarises their
// time_to_target over the seeds. RPD, which has no time axis, is left out.
func TargetBars(runs []Run) []TargetBar {
	var out []TargetBar
	for _, r := range plotted(runs) {
		if r.Method == "rpd" {
			continue
		}
		opt, _, _ := strings.Cut(r.Optimizer, " ")
		i := slices.IndexFunc(out, func(b TargetBar) bool { return b.Method == r.Method && b.Optimizer == opt && b.Stages == r.Stages })
		if i < 0 {
			out = append(out, TargetBar{Method: r.Method, Optimizer: opt, Stages: r.Stages, Min: math.Inf(1), Max: math.Inf(-1)})
			i = len(out) - 1
		}
		b := &out[i]
		b.Seeds++
		if r.Selected && (r.SelectionBound == BoundLower || r.SelectionBound == BoundUpper) {
			b.Bound = r.SelectionBound
		}
		if t := r.TimeToTarget; !math.IsNaN(t) && !r.Diverged() {
			b.Reached++
			b.Mean += t
			b.Min, b.Max = min(b.Min, t), max(b.Max, t)
		}
	}
	for i := range out {
		if out[i].Reached > 0 {
			out[i].Mean /= float64(out[i].Reached)
		} else {
			out[i].Mean, out[i].Min, out[i].Max = math.NaN(), math.NaN(), math.NaN()
		}
	}
	slices.SortFunc(out, func(a, b TargetBar) int {
		return cmp.Or(cmp.Compare(a.Method, b.Method), cmp.Compare(a.Optimizer, b.Optimizer), cmp.Compare(a.Stages, b.Stages))
	})
	return out
}

// PlotTimeToTarget draws, to path, the time to the target loss of each
// method and optimizer (TargetBars) as bars grouped by method and
// optimizer, one bar per stage count, the whiskers spanning the seeds'
// fastest and slowest. A bar no seed reached is left empty and its label
// marked "(not reached)"; runs must share one cost model. The title names
// the target loss (targetText) and the clock (WithClock adds the GPU
// model's presets).
func PlotTimeToTarget(path string, runs []Run, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	bars := TargetBars(runs)
	if len(bars) == 0 {
		return fmt.Errorf("results: %s: no runs with a time axis: %w", path, ErrNoData)
	}
	costModels := distinct(runs, func(r *Run) string { return r.CostModel })
	if len(costModels) > 1 {
		return fmt.Errorf("results: %s: runs mix cost models %v on one time axis", path, costModels)
	}
	var groups []string
	var stages []int32
	for _, b := range bars {
		if g := b.Method + " " + b.Optimizer; !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		if !slices.Contains(stages, b.Stages) {
			stages = append(stages, b.Stages)
		}
	}
	slices.Sort(stages)
	reached := map[string]bool{}
	for _, b := range bars {
		if b.Reached > 0 {
			reached[b.Method+" "+b.Optimizer] = true
		}
	}
	p := newPlot(objectiveTitle(runs, opts)+": time to "+targetText(runs)+", "+clockOf(costModels[0], opts).String(),
		"method and optimizer", "time to target ("+timeUnit(costModels[0])+")")
	// Bar k of group g sits at x = g·(len(stages)+1) + k: a gap between
	// groups, the whiskers at the bars' own positions.
	slot := len(stages) + 1
	width := vg.Points(14)
	for k, s := range stages {
		vals := make(plotter.Values, len(groups)*slot)
		var errs plotter.XYs
		var lo, hi []float64
		for _, b := range bars {
			if b.Stages != s || b.Reached == 0 {
				continue
			}
			x := slices.Index(groups, b.Method+" "+b.Optimizer)*slot + k
			vals[x] = b.Mean
			errs = append(errs, plotter.XY{X: float64(x), Y: b.Mean})
			lo, hi = append(lo, b.Mean-b.Min), append(hi, b.Max-b.Mean)
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		bc.Color = plotutil.Color(k)
		bc.LineStyle.Width = 0
		p.Add(bc)
		p.Legend.Add(fmt.Sprintf("S = %d", s), bc)
		if len(errs) > 0 {
			yerr := make(plotter.Errors, len(errs))
			for i := range yerr {
				yerr[i] = struct{ Low, High float64 }{lo[i], hi[i]}
			}
			ye := &plotter.YErrorBars{XYs: errs, YErrors: plotter.YErrors(yerr), LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(4)}
			p.Add(ye)
		}
	}
	var ticks []plot.Tick
	for g, name := range groups {
		label := name
		if !reached[name] {
			label += " (not reached)"
		}
		label += boundText(bars, name)
		ticks = append(ticks, plot.Tick{Value: float64(g*slot) + float64(len(stages)-1)/2, Label: label})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -0.9, -0.5
	p.Legend.Top = true
	// Room above the tallest bar for the legend's lines, so no bar runs
	// under it.
	p.Y.Min = 0
	p.Y.Max *= 1 + 0.08*float64(len(stages))
	return savePlot(path, p, plotWidth, plotHeight+1*vg.Inch)
}

// boundText marks a group of bars whose selected step sat at an edge of
// its grid at some S: " (γ at grid bottom at S = 4)", " (γ at grid top at
// S = 16)".
func boundText(bars []TargetBar, group string) string {
	at := map[string][]string{}
	for _, b := range bars {
		if b.Method+" "+b.Optimizer == group && b.Bound != "" {
			at[b.Bound] = append(at[b.Bound], strconv.Itoa(int(b.Stages)))
		}
	}
	var parts []string
	for _, c := range []struct{ bound, text string }{{BoundLower, "γ at grid bottom"}, {BoundUpper, "γ at grid top"}} {
		if st := at[c.bound]; len(st) > 0 {
			parts = append(parts, c.text+" at S = "+strings.Join(st, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// targetText names the target loss of runs for a title: "the target loss
// 3.3128" (the runs' target_loss; several are listed), or, for a table
// written before target_loss was recorded, "the target loss (not
// recorded)".
func targetText(runs []Run) string {
	var targets []float64
	for _, r := range runs {
		if r.TargetLoss > 0 && !slices.Contains(targets, r.TargetLoss) {
			targets = append(targets, r.TargetLoss)
		}
	}
	slices.Sort(targets)
	if len(targets) == 0 {
		return "the target loss (not recorded)"
	}
	words := make([]string, len(targets))
	for i, v := range targets {
		words[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	if len(words) == 1 {
		return "the target loss " + words[0]
	}
	return "the target losses " + strings.Join(words, ", ")
}
