package results

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// gapPanelSize is one panel of the gap figures.
const (
	gapPanelWidth  = 4.2 * vg.Inch
	gapPanelHeight = 3.6 * vg.Inch
)

// PlotGapLaw draws, to path, one panel per experiment of gaps, x on a log
// axis and the gap on a symmetric-log one (symLogScale), so that a
// negative gap shows: the gap against x (S, or K when variable is
// FitTotalMicrobatches) of one method against its baseline, each
// replicate's gap a small dot, the mean a large marker (filled where the
// row entered the fit, hollow where its gap is no positive claim under the
// one significance rule, Gap.Fitted) with its 95 % t interval as a bar, a
// zero line, the fitted a·x^b (fits) solid and the paper's exponent dashed
// through the fitted line's middle. notes[experiment], when set, is added to the panel's title (the
// LM's size and tokens).
func PlotGapLaw(path string, gaps []Gap, fits []ExponentFit, variable string, notes map[string]string) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	var experiments []string
	for _, g := range gaps {
		if !slices.Contains(experiments, g.Experiment) {
			experiments = append(experiments, g.Experiment)
		}
	}
	if len(experiments) == 0 {
		return fmt.Errorf("results: %s: no gaps: %w", path, ErrNoData)
	}
	slices.Sort(experiments)
	xOf := func(g Gap) float64 {
		if variable == FitTotalMicrobatches {
			return float64(g.TotalMicrobatches)
		}
		return float64(g.Stages)
	}
	xName := map[bool]string{true: "microbatches K (updates per stage)", false: "stages S"}[variable == FitTotalMicrobatches]
	var panels []*plot.Plot
	for _, e := range experiments {
		var rows []Gap
		for _, g := range gaps {
			if g.Experiment == e {
				rows = append(rows, g)
			}
		}
		f := slices.IndexFunc(fits, func(f ExponentFit) bool { return f.Experiment == e && f.Variable == variable })
		title := rows[0].Objective + ": " + rows[0].Method + " − " + rows[0].Baseline
		if variable == FitTotalMicrobatches {
			title += fmt.Sprintf(", S = %d", rows[0].Stages)
		} else {
			title += fmt.Sprintf(", K = %d", rows[0].TotalMicrobatches)
		}
		if n := notes[e]; n != "" {
			title += "\n" + n
		}
		if f >= 0 && !math.IsNaN(fits[f].Exponent) {
			ft := fits[f]
			title += fmt.Sprintf("\nfit b = %.2f [%.2f, %.2f] (95%% t), paper %g", ft.Exponent, ft.Low, ft.High, ft.Predicted)
		} else {
			title += "\nno fit: fewer than two gaps hold (the rule, every seed > 0)"
		}
		var dots, fitted, unfitted, edges, bars plotter.XYs
		var xs []int32
		for _, g := range rows {
			x := xOf(g)
			xs = append(xs, int32(x))
			for _, v := range g.Gaps {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					dots = append(dots, plotter.XY{X: x, Y: v})
				}
			}
			if g.AtEdge {
				edges = append(edges, plotter.XY{X: x, Y: g.Mean})
			}
			if lo, hi := gapBar(g); lo < hi {
				bars = append(bars, plotter.XY{X: x, Y: lo}, plotter.XY{X: x, Y: hi})
			}
			if g.Fitted {
				fitted = append(fitted, plotter.XY{X: x, Y: g.Mean})
			} else {
				unfitted = append(unfitted, plotter.XY{X: x, Y: g.Mean})
			}
		}
		yl := "loss gap (" + rows[0].Loss + "), symmetric log"
		p := newPlot(title, xName, yl)
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		p.Legend.XOffs = -vg.Points(6) // off the panel's right edge
		setLog(&p.X)
		p.X.Tick.Marker = stageCountTicks(xs)
		all := slices.Concat(dots, fitted, unfitted, bars)
		var ys []float64
		for _, pt := range all {
			ys = append(ys, pt.Y)
		}
		c := symLogLinear(ys)
		p.Y.Scale, p.Y.Tick.Marker = symLogScale{C: c}, symLogTicks{C: c}
		if len(all) == 0 {
			p.Add(plotter.NewFunction(func(float64) float64 { return 0 })) // an empty panel with its title
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 2, -1, 1
			panels = append(panels, p)
			continue
		}
		ylo, yhi := 0.0, 0.0 // zero always shows
		for _, pt := range all {
			ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
		}
		xlo, xhi := float64(slices.Min(xs)), float64(slices.Max(xs))
		zero, err := plotter.NewLine(plotter.XYs{{X: xlo / 1.2, Y: 0}, {X: xhi * 1.2, Y: 0}})
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		zero.Color, zero.Width = color.Gray{Y: 150}, vg.Points(0.8)
		p.Add(zero)
		for i := 0; i+1 < len(bars); i += 2 {
			bar, err := plotter.NewLine(bars[i : i+2])
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			bar.Color, bar.Width = MethodColor(rows[0].Method), vg.Points(1)
			p.Add(bar)
		}
		if len(dots) > 0 {
			s, err := plotter.NewScatter(dots)
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			s.Color, s.Radius = MethodColor(rows[0].Method), vg.Points(1.5)
			p.Add(s)
			p.Legend.Add("each seed", s)
		}
		for _, set := range []struct {
			pts   plotter.XYs
			label string
			fill  bool
		}{{fitted, "mean (bar: 95 % t), fitted", true}, {unfitted, "mean (bar: 95 % t), not fitted", false}} {
			if len(set.pts) == 0 {
				continue
			}
			s, err := plotter.NewScatter(set.pts)
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			s.Color, s.Radius = MethodColor(rows[0].Method), vg.Points(4)
			s.Shape = draw.CircleGlyph{}
			if !set.fill {
				s.Shape = draw.RingGlyph{}
			}
			p.Add(s)
			p.Legend.Add(set.label, s)
		}
		if err := addEdgeMarks(p, edges); err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		if f >= 0 && !math.IsNaN(fits[f].Exponent) {
			ft := fits[f]
			var fx []float64
			for _, g := range rows {
				if g.Fitted {
					fx = append(fx, xOf(g))
				}
			}
			lo, hi := slices.Min(fx), slices.Max(fx)
			line := func(a, b float64) (*plotter.Line, error) {
				xy := plotter.XYs{}
				for i := 0; i <= 20; i++ {
					x := lo * math.Pow(hi/lo, float64(i)/20)
					xy = append(xy, plotter.XY{X: x, Y: a * math.Pow(x, b)})
				}
				for _, pt := range xy {
					ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
				}
				return plotter.NewLine(xy)
			}
			fl, err := line(ft.Coefficient, ft.Exponent)
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			fl.Color, fl.Width = MethodColor(rows[0].Method), vg.Points(1.5)
			p.Add(fl)
			p.Legend.Add(fmt.Sprintf("fit ∝ x^%.2f", ft.Exponent), fl)
			// The paper's exponent through the fitted line at the middle
			// (geometric) of the fitted range.
			mid := math.Sqrt(lo * hi)
			a := ft.Coefficient * math.Pow(mid, ft.Exponent) / math.Pow(mid, ft.Predicted)
			rl, err := line(a, ft.Predicted)
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			rl.Color, rl.Width, rl.Dashes = MethodColor("sync"), vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(rl)
			p.Legend.Add(fmt.Sprintf("paper ∝ x^%g", ft.Predicted), rl)
		}
		p.X.Min, p.X.Max = xlo/1.2, xhi*1.2
		p.Y.Min, p.Y.Max = ylo, yhi+30*c+3*math.Abs(yhi) // room for the legend above the data
		panels = append(panels, p)
	}
	return saveGapPanels(path, panels, 1, len(panels))
}

// saveGapPanels lays panels out on rows × cols tiles.
func saveGapPanels(path string, panels []*plot.Plot, rows, cols int) error {
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(panels) {
				grid[i][j] = panels[k]
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(12), PadY: vg.Points(12), PadTop: vg.Points(4),
		PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(20)}
	w, h := vg.Length(cols)*gapPanelWidth, vg.Length(rows)*gapPanelHeight
	return saveDrawing(path, w, h, func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		cells := plot.Align(grid, tiles, c)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(cells[i][j])
				}
			}
		}
	})
}

// PlotGapByOptimizer draws, to path, small multiples: one panel per
// optimizer, the gap of each method against its baseline (sync) against
// S, the mean over replicates with bars of its 95 % t interval (Gap.Low,
// High), a zero line; every panel on one gap range. note is
// added under the first title (the LM's size and tokens).
func PlotGapByOptimizer(path string, gaps []Gap, note string) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	if len(gaps) == 0 {
		return fmt.Errorf("results: %s: no gaps: %w", path, ErrNoData)
	}
	var optimizers, methods []string
	var stages []int32
	lo, hi := 0.0, 0.0
	for _, g := range gaps {
		if name := optimizerName(g.Optimizer); !slices.Contains(optimizers, name) {
			optimizers = append(optimizers, name)
		}
		if !slices.Contains(methods, g.Method) {
			methods = append(methods, g.Method)
		}
		stages = append(stages, g.Stages)
		glo, ghi := gapBar(g)
		lo, hi = math.Min(lo, glo), math.Max(hi, ghi)
	}
	slices.Sort(optimizers)
	slices.Sort(methods)
	pad := 0.08 * (hi - lo)
	var panels []*plot.Plot
	for i, o := range optimizers {
		title := o + fmt.Sprintf(": mean of %s seeds, bars 95 %% t interval", seedCounts(gaps))
		if i == 0 && note != "" {
			title += "\n" + note
		}
		p := newPlot(title, "stages S", fmt.Sprintf("%s loss − %s's", gaps[0].Loss, gaps[0].Baseline))
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		p.Legend.XOffs = -vg.Points(6)
		setLog(&p.X)
		p.X.Tick.Marker = stageCountTicks(stages)
		p.Y.Tick.Marker = LinearTicks{}
		zero, err := plotter.NewLine(plotter.XYs{{X: float64(slices.Min(stages)) / 1.3, Y: 0}, {X: float64(slices.Max(stages)) * 1.3, Y: 0}})
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		zero.Color, zero.Width = color.Gray{Y: 150}, vg.Points(0.8)
		p.Add(zero)
		var edges plotter.XYs
		for mi, m := range methods {
			var pts plotter.XYs
			var errs plotter.YErrors
			for _, g := range gaps {
				if optimizerName(g.Optimizer) != o || g.Method != m {
					continue
				}
				// Methods side by side, a little apart in log S.
				x := float64(g.Stages) * math.Pow(2, 0.08*float64(mi-(len(methods)-1)/2))
				pts = append(pts, plotter.XY{X: x, Y: g.Mean})
				if g.AtEdge {
					edges = append(edges, plotter.XY{X: x, Y: g.Mean})
				}
				glo, ghi := gapBar(g)
				errs = append(errs, struct{ Low, High float64 }{g.Mean - glo, ghi - g.Mean})
			}
			if len(pts) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return fmt.Errorf("results: %s: %w", path, err)
			}
			c := MethodColor(m)
			line.Color, line.Width = c, vg.Points(1.4)
			if strings.HasPrefix(m, "ef") {
				line.Dashes = []vg.Length{vg.Points(5), vg.Points(2.5)} // 2BW's hue, dashed
			}
			points.Color, points.Shape, points.Radius = c, draw.CircleGlyph{}, vg.Points(2.5)
			p.Add(line, points)
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{pts, errs})
			if err == nil {
				bars.Color = c
				p.Add(bars)
			}
			p.Legend.Add(m, line, points)
		}
		if err := addEdgeMarks(p, edges); err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		p.X.Min, p.X.Max = float64(slices.Min(stages))/1.3, float64(slices.Max(stages))*1.3
		p.Y.Min, p.Y.Max = lo-pad, hi+pad+0.3*(hi-lo+2*pad)
		panels = append(panels, p)
	}
	cols := min(2, len(panels))
	return saveGapPanels(path, panels, (len(panels)+cols-1)/cols, cols)
}

// gapBar is a gap's bar: its 95 % t interval (the one significance rule),
// or its single value for one replicate.
func gapBar(g Gap) (lo, hi float64) {
	if g.Replicates < 2 || math.IsNaN(g.Low) {
		return g.Mean, g.Mean
	}
	return g.Low, g.High
}

// addEdgeMarks crosses the points whose selected step (the method's or
// the baseline's) is at its grid's edge, so that the tuned loss is a
// bound, with a legend entry when there are any.
func addEdgeMarks(p *plot.Plot, edges plotter.XYs) error {
	if len(edges) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(edges)
	if err != nil {
		return err
	}
	s.Shape, s.Color, s.Radius = draw.CrossGlyph{}, color.Black, vg.Points(5)
	p.Add(s)
	p.Legend.Add("step at its grid's edge (a bound)", s)
	return nil
}

// seedCounts names the replicate counts of gaps: "3", or "2–3".
func seedCounts(gaps []Gap) string {
	lo, hi := gaps[0].Replicates, gaps[0].Replicates
	for _, g := range gaps {
		lo, hi = min(lo, g.Replicates), max(hi, g.Replicates)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}
