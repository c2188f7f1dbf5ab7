package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// delayBound is S² - S/2, the growth of PipeDream's largest steady-state
// delay (docs/reference.md §1.3: the maximum is ⌊S² - S/2⌋).
func delayBound(s float64) float64 { return s*s - s/2 }

// PlotDelays draws, to path, the largest and the mean delay against the
// number of stages, both axes logarithmic, one series per statistic and
// window, with the curve S² - S/2 and a least-squares fit c·(S² - S/2) to
// the mean delays of the steady window (of the only window, if there is
// one). Each (stages, window) pair must appear once; a non-positive stage
// count, max or mean is an ErrLogAxis error.
func PlotDelays(path string, stats []DelayStat) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	if len(stats) == 0 {
		return fmt.Errorf("results: %s: no delay statistics: %w", path, ErrNoData)
	}
	stats = byStages(stats)
	var windows []string
	for i, d := range stats {
		if d.Stages <= 0 || d.Max <= 0 || !positive(d.Mean) {
			return fmt.Errorf("results: %s: S = %d, window %q: max %d, mean %g: %w", path, d.Stages, d.Window, d.Max, d.Mean, ErrLogAxis)
		}
		if i > 0 && d.Stages == stats[i-1].Stages && d.Window == stats[i-1].Window {
			return fmt.Errorf("results: %s: S = %d, window %q appears twice (N = %d and %d)", path, d.Stages, d.Window, stats[i-1].TotalMicrobatches, d.TotalMicrobatches)
		}
		if !slices.Contains(windows, d.Window) {
			windows = append(windows, d.Window)
		}
	}
	slices.SortFunc(windows, func(a, b string) int {
		return cmp.Or(cmpBool(a != WindowSteady, b != WindowSteady), cmp.Compare(a, b))
	})

	title := "PipeDream delay k − j in block updates vs stages" + microbatchNote(stats)
	if len(windows) == 1 {
		title += ", " + windowName(windows[0])
	}
	// A short y label: gonum places a centred axis label's glyph box at the
	// arithmetic mid-range, near the top of a log axis, and pads the plot
	// by half the label's length there.
	p := newPlot(title, "pipeline stages S", "delay")
	setLog(&p.X)
	setLog(&p.Y)
	// Delays grow with S: the bottom right corner is free for the legend.
	p.Legend.Top = false
	p.Legend.YOffs = vg.Points(6)
	series, err := addDelayScatters(p, stats, windows)
	if err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}

	p.X.Min, p.X.Max = logMargin(float64(stats[0].Stages), float64(stats[len(stats)-1].Stages))
	p.Y.Min, p.Y.Max = logMargin(p.Y.Min, p.Y.Max)
	var stages []int32
	for _, d := range stats {
		stages = append(stages, d.Stages)
	}
	p.X.Tick.Marker = stageCountTicks(stages)
	for i, cv := range delayCurves(stats, windows) {
		line, err := plotter.NewLine(cv.xy)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		line.Color = plotutil.Color(series + i)
		line.Dashes = plotutil.Dashes(i + 1)
		line.Width = vg.Points(1.2)
		p.Add(line)
		p.Legend.Add(cv.label, line)
	}
	return savePlot(path, p, plotWidth, plotHeight)
}

// addDelayScatters adds to p, and to its legend, one scatter of the
// largest and one of the mean delay against stages per window: colours by
// series, shapes by window (windowGlyph). It returns the number of series
// added.
func addDelayScatters(p *plot.Plot, stats []DelayStat, windows []string) (series int, err error) {
	for wi, w := range windows {
		for _, stat := range []struct {
			name  string
			value func(DelayStat) float64
		}{
			{"max", func(d DelayStat) float64 { return float64(d.Max) }},
			{"mean", func(d DelayStat) float64 { return d.Mean }},
		} {
			var xy plotter.XYs
			for _, d := range stats {
				if d.Window == w {
					xy = append(xy, plotter.XY{X: float64(d.Stages), Y: stat.value(d)})
				}
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return 0, err
			}
			sc.Color = plotutil.Color(series)
			sc.Shape, sc.Radius = windowGlyph(wi)
			p.Add(sc)
			label := stat.name
			if len(windows) > 1 {
				label += ", " + windowName(w)
			}
			p.Legend.Add(label, sc)
			series++
		}
	}
	return series, nil
}

// windowGlyph is the marker of window wi's points. The windows' values
// often coincide (the steady-state mean is the mean over all rows at S =
// 64 to a few per cent), so the first window's are small filled dots and
// the second's larger hollow squares around them: where they coincide,
// both show. Later windows take gonum's shapes.
func windowGlyph(wi int) (draw.GlyphDrawer, vg.Length) {
	switch wi {
	case 0:
		return draw.CircleGlyph{}, vg.Points(2.8)
	case 1:
		return draw.SquareGlyph{}, vg.Points(5.5)
	}
	return plotutil.Shape(wi), vg.Points(4)
}

// byStages returns a copy of stats sorted by stages, then window (the
// table's own order leads with the run id, a hash).
func byStages(stats []DelayStat) []DelayStat {
	stats = slices.Clone(stats)
	slices.SortFunc(stats, func(a, b DelayStat) int {
		return cmp.Or(cmp.Compare(a.Stages, b.Stages), cmp.Compare(a.Window, b.Window), delayTable.compare(&a, &b))
	})
	return stats
}

// delayCurve is one reference curve of the delay plot.
type delayCurve struct {
	label string
	xy    plotter.XYs
}

// delayCurves returns the curve S² − S/2 and the least-squares fit
// c·(S² − S/2) to the mean delays of windows[0], both sampled over the
// stage counts of stats (sorted by stages), from the smallest to the
// largest.
func delayCurves(stats []DelayStat, windows []string) []delayCurve {
	lo, hi := float64(stats[0].Stages), float64(stats[len(stats)-1].Stages)
	c := fitDelayBound(stats, windows[0])
	fitted := "mean"
	if len(windows) > 1 {
		fitted += ", " + windowName(windows[0])
	}
	return []delayCurve{
		{"S² − S/2", sampleCurve(lo, hi, delayBound)},
		{"least-squares fit " + strconv.FormatFloat(c, 'f', 3, 64) + "·(S² − S/2) to " + fitted,
			sampleCurve(lo, hi, func(s float64) float64 { return c * delayBound(s) })},
	}
}

// fitDelayBound returns the least-squares c of mean ≈ c·(S² − S/2) over
// the stats of window.
func fitDelayBound(stats []DelayStat, window string) float64 {
	var num, den float64
	for _, d := range stats {
		if d.Window == window {
			g := delayBound(float64(d.Stages))
			num += d.Mean * g
			den += g * g
		}
	}
	return num / den
}

// windowName describes a window in titles and legends.
func windowName(w string) string {
	switch w {
	case WindowSteady:
		return "steady state"
	case WindowAll:
		return "all rows"
	}
	return w + " window"
}

// sampleCurve samples f at 64 geometrically spaced points of [lo, hi], or
// at lo alone when the range is a point.
func sampleCurve(lo, hi float64, f func(float64) float64) plotter.XYs {
	const n = 64
	if hi <= lo {
		return plotter.XYs{{X: lo, Y: f(lo)}}
	}
	xy := make(plotter.XYs, n)
	for i := range xy {
		s := lo * math.Pow(hi/lo, float64(i)/(n-1))
		xy[i] = plotter.XY{X: s, Y: f(s)}
	}
	return xy
}

// microbatchNote describes the microbatch counts of stats for the title:
// ", N = 10S" when N is the same multiple of S throughout.
func microbatchNote(stats []DelayStat) string {
	ratio := stats[0].TotalMicrobatches / stats[0].Stages
	for _, d := range stats {
		if d.TotalMicrobatches != ratio*d.Stages {
			return ""
		}
	}
	return fmt.Sprintf(", N = %dS", ratio)
}
