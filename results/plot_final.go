package results

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotFinalVsStages draws, to path, the final loss of each method against
// the number of pipeline stages, both axes logarithmic. If any run is marked
// Selected only the selected runs count. Each point is the mean final loss
// over the runs of one (method, stages) pair (the seeds); diverged runs are
// left out of the mean, and a pair whose runs all diverged has no point.
// A non-positive final loss or stage count is an ErrLogAxis error.
func PlotFinalVsStages(path string, runs []Run) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	runs = plotted(runs)
	type key struct {
		method string
		stages int32
	}
	sum := map[key]float64{}
	count := map[key]int{}
	var kept []Run
	for _, r := range runs {
		if r.Diverged() {
			continue
		}
		if r.Stages <= 0 || !positive(r.FinalLoss) {
			return fmt.Errorf("results: %s: run %q: stages %d, final loss %g: %w", path, r.RunID, r.Stages, r.FinalLoss, ErrLogAxis)
		}
		k := key{r.Method, r.Stages}
		sum[k] += r.FinalLoss
		count[k]++
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return fmt.Errorf("results: %s: no run that did not diverge among %d: %w", path, len(runs), ErrNoData)
	}

	title := describe(kept, func(r *Run) string { return r.Objective }) + ": final loss vs pipeline stages"
	if budgets := distinct(kept, func(r *Run) string { return formatTime(r.TimeBudget, r.CostModel) }); len(budgets) == 1 && kept[0].TimeBudget > 0 {
		title += ", budget " + budgets[0]
	}
	p := newPlot(title, "pipeline stages S", "final loss f(x)")
	setLog(&p.X)
	setLog(&p.Y)
	for i, method := range distinct(kept, func(r *Run) string { return r.Method }) {
		var xy plotter.XYs
		for k, n := range count {
			if k.method == method {
				xy = append(xy, plotter.XY{X: float64(k.stages), Y: sum[k] / float64(n)})
			}
		}
		slices.SortFunc(xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("results: %s: method %q: %w", path, method, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		line.Width = vg.Points(1.5)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(method, line, points)
	}
	legendRoom(p, len(distinct(kept, func(r *Run) string { return r.Method })))
	p.Legend.Left = true
	return savePlot(path, p, plotWidth, plotHeight)
}
