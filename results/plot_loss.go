package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotLossVsTime draws, to path (.png or .svg), the loss of each run against
// simulated time, from the runs' curve points, on a log loss axis. If any
// run is marked Selected only the selected runs are drawn. Lines are dashed
// per method and coloured per run; the legend names each line by its method
// and the settings that differ between runs of that method. A non-finite
// loss ends a run's line (the run diverged there); a zero or negative loss
// is an ErrLogAxis error; runs must share one cost model. RPD runs have no
// timeline (their sim_time is null) and are left out: PlotLossVsUpdates
// draws them.
func PlotLossVsTime(path string, runs []Run, curves []CurvePoint) error {
	runs = slices.DeleteFunc(slices.Clone(runs), func(r Run) bool { return isRPD(&r) })
	return plotCurves(path, runs, curves, "loss vs simulated time",
		func(costModel string) string { return "simulated time (" + timeUnit(costModel) + ")" },
		func(p *CurvePoint) float64 { return p.Time })
}

// PlotLossVsUpdates draws, to path, the loss of each run against the number
// of block updates applied: the view in which PipeDream and RPD at several
// delay bounds δ are compared. Run selection, line styles and errors are as
// for PlotLossVsTime.
func PlotLossVsUpdates(path string, runs []Run, curves []CurvePoint) error {
	return plotCurves(path, runs, curves, "loss vs block updates",
		func(string) string { return "block updates" },
		func(p *CurvePoint) float64 { return float64(p.BlockUpdates) })
}

func plotCurves(path string, runs []Run, curves []CurvePoint, what string,
	xLabel func(costModel string) string, x func(*CurvePoint) float64) error {
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

	p := newPlot(describe(runs, func(r *Run) string { return r.Objective })+": "+what,
		xLabel(costModels[0]), "loss f(x)")
	setLog(&p.Y)
	methods := distinct(runs, func(r *Run) string { return r.Method })
	labels := runLabels(runs)
	drawn := 0
	for i, r := range runs {
		pts := byRun[r.RunID]
		slices.SortStableFunc(pts, func(a, b CurvePoint) int { return cmp.Compare(x(&a), x(&b)) })
		var xy plotter.XYs
		for _, pt := range pts {
			if math.IsNaN(pt.Loss) || math.IsInf(pt.Loss, 0) {
				break
			}
			if pt.Loss <= 0 {
				return fmt.Errorf("results: %s: run %q: loss %g at x = %g: %w", path, r.RunID, pt.Loss, x(&pt), ErrLogAxis)
			}
			xy = append(xy, plotter.XY{X: x(&pt), Y: pt.Loss})
		}
		if len(xy) == 0 {
			continue
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("results: %s: run %q: %w", path, r.RunID, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(slices.Index(methods, r.Method))
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(labels[i], line)
		drawn++
	}
	legendRoom(p, drawn)
	if drawn == 0 {
		return fmt.Errorf("results: %s: no finite curve points for %d runs: %w", path, len(runs), ErrNoData)
	}
	return savePlot(path, p, plotWidth, plotHeight)
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

// compareSettings orders runs for legends: by method, then by the settings
// that tell runs of one method apart, then by run id.
func compareSettings(a, b Run) int {
	return cmp.Or(
		cmp.Compare(a.Method, b.Method),
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
