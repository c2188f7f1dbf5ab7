package results

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Errors of the plot functions, wrapped with the file and the offending row.
var (
	// ErrNoData: nothing to draw (an empty table, or no rows left after
	// the documented filters).
	ErrNoData = errors.New("results: nothing to plot")
	// ErrLogAxis: a value that a logarithmic axis cannot show (zero,
	// negative or infinite).
	ErrLogAxis = errors.New("results: value not positive and finite on a log axis")
)

// Size and resolution of the figures.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
	pngDPI     = 150
)

// rightMargin keeps a plot's legend and its last glyphs off the right edge
// of the figure.
const rightMargin = 8 * vg.Millimeter / 4

// savePlot writes p to path, as PNG or SVG by the extension, atomically.
func savePlot(path string, p *plot.Plot, w, h vg.Length) error {
	fitTitle(p, w-rightMargin)
	return saveDrawing(path, w, h, func(c draw.Canvas) { p.Draw(draw.Crop(c, 0, -rightMargin, 0, 0)) })
}

// minTitleSize is the smallest font fitTitle sets a title in.
const minTitleSize = 9

// fitTitle shrinks the font of p's title, down to minTitleSize points, until
// the title fits in width: a title that names objective, stages, model, GPU,
// link and budget would otherwise run off the figure's edges.
func fitTitle(p *plot.Plot, width vg.Length) {
	sty := &p.Title.TextStyle
	for sty.Width(p.Title.Text) > width-vg.Points(4) && sty.Font.Size > vg.Points(minTitleSize) {
		sty.Font.Size -= vg.Points(0.5)
	}
}

// saveDrawing renders draw onto a canvas of the format path's extension
// names and writes it to path atomically.
func saveDrawing(path string, w, h vg.Length, drawFn func(draw.Canvas)) error {
	var out io.WriterTo
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
		drawFn(draw.New(c))
		out = vgimg.PngCanvas{Canvas: c}
	case ".svg":
		c := vgsvg.New(w, h)
		drawFn(draw.New(c))
		out = c
	default:
		return checkFormat(path)
	}
	return writeAtomic(path, func(f *os.File) error {
		if _, err := out.WriteTo(f); err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		return nil
	})
}

// checkFormat rejects a path whose extension names no supported format,
// before any work is done.
func checkFormat(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg":
		return nil
	}
	return fmt.Errorf("results: %s: unsupported figure format %q (want .png or .svg)", path, filepath.Ext(path))
}

// newPlot returns a plot with a title, axis labels, light grid lines and
// the legend at the top, in the small font every figure shares.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Padding = vg.Points(1.5) // between entries, so lines of text do not touch
	p.Add(gridLines())
	return p
}

// setLog makes an axis logarithmic with 1-2-5 ticks.
func setLog(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = LogTicks{}
}

// maxInsideLegend is the most entries a legend holds inside the data area,
// above the data (legendRoom); a longer one would cover the data, and goes
// in a column right of the plot instead.
const maxInsideLegend = 8

// saveWithLegend writes p to path with its legend of entries lines inside
// the plot above the data, or, when it has more than maxInsideLegend
// entries, beside the plot: the figure is widened by the legend's width,
// and made taller if the legend needs it.
func saveWithLegend(path string, p *plot.Plot, entries int) error {
	w, h, drawFn := legendPanel(p, entries)
	return saveDrawing(path, w, h, func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		drawFn(c)
	})
}

// legendPanel lays p out as saveWithLegend does and returns its size and
// how to draw it (onto a canvas of that size).
func legendPanel(p *plot.Plot, entries int) (w, h vg.Length, drawFn func(draw.Canvas)) {
	if entries <= maxInsideLegend {
		legendRoom(p, entries)
		fitTitle(p, plotWidth-rightMargin)
		return plotWidth, plotHeight, func(c draw.Canvas) { p.Draw(draw.Crop(c, 0, -rightMargin, 0, 0)) }
	}
	fitTitle(p, plotWidth)
	side := p.Legend
	p.Legend = plot.NewLegend()
	side.Top, side.Left, side.XOffs, side.YOffs = true, true, 0, 0
	r := side.Rectangle(draw.Canvas{})
	legendW, legendH := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	gap, top := vg.Points(10), vg.Points(24) // the legend starts below the title
	w = plotWidth + gap + legendW + rightMargin
	h = max(plotHeight, legendH+top+vg.Points(8))
	return w, h, func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -(c.Max.X - c.Min.X - plotWidth), 0, 0))
		side.Draw(draw.Crop(c, plotWidth+gap, -rightMargin, 0, -top))
	}
}

// maxPanelLines is the most lines one convergence plot draws on one pair
// of axes; a plot with more, whose runs use several optimizers, is drawn
// as small multiples, one panel per optimizer (byOptimizer), so that no
// panel holds more than one line per method and setting.
const maxPanelLines = 12

// byOptimizer splits runs by the optimizer's name (the label's first word:
// "adam", "momentum"), in order of name; runs with one optimizer come
// back whole.
func byOptimizer(runs []Run) [][]Run {
	names := distinct(runs, func(r *Run) string { return optimizerName(r.Optimizer) })
	slices.Sort(names)
	out := make([][]Run, len(names))
	for _, r := range runs {
		i := slices.Index(names, optimizerName(r.Optimizer))
		out[i] = append(out[i], r)
	}
	return out
}

// optimizerName is the optimizer of a label without its settings.
func optimizerName(label string) string {
	name, _, _ := strings.Cut(label, " ")
	return name
}

// saveStacked writes panels, each a plot with its legend of entries[i]
// lines laid out as saveWithLegend does, one under the other in one figure,
// their loss axes set to the same range so that heights compare across
// panels.
func saveStacked(path string, panels []*plot.Plot, entries []int) error {
	lo, hi := panels[0].Y.Min, panels[0].Y.Max
	for _, p := range panels[1:] {
		lo, hi = min(lo, p.Y.Min), max(hi, p.Y.Max)
	}
	var w, h vg.Length
	var heights []vg.Length
	var draws []func(draw.Canvas)
	for i, p := range panels {
		p.Y.Min, p.Y.Max = lo, hi
		pw, ph, d := legendPanel(p, entries[i])
		w, h = max(w, pw), h+ph
		heights, draws = append(heights, ph), append(draws, d)
	}
	return saveDrawing(path, w, h, func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		top := vg.Length(0)
		for i, d := range draws {
			d(draw.Crop(c, 0, 0, h-top-heights[i], -top))
			top += heights[i]
		}
	})
}

// legendRoom raises the top of a logarithmic y axis so that a legend of
// entries lines at the top sits above the data: each line takes about 5%
// of the height of a figure of plotHeight. Call it after the data are added.
func legendRoom(p *plot.Plot, entries int) {
	if p.Y.Min > 0 && p.Y.Max > p.Y.Min {
		share := min(0.5, 0.03+0.05*float64(entries))
		p.Y.Max = p.Y.Min * math.Pow(p.Y.Max/p.Y.Min, 1/(1-share))
	}
}

// logMargin widens [lo, hi] (lo > 0) on a log axis by 3% of its span on
// each side, or by a factor of 1.25 when lo = hi, so that points at the
// ends are drawn whole rather than cut at the edge of the figure.
func logMargin(lo, hi float64) (float64, float64) {
	f := 1.25
	if hi > lo {
		f = math.Pow(hi/lo, 0.03)
	}
	return lo / f, hi * f
}

// positive reports whether v can be shown on a log axis.
func positive(v float64) bool { return v > 0 && v <= math.MaxFloat64 }

// gridLines returns light grid lines at the major ticks.
func gridLines() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	return g
}

// timeUnit names the unit of simulated time under a cost model.
func timeUnit(costModel string) string {
	switch costModel {
	case CostUnit:
		return "steps"
	case CostGPU:
		return "s"
	}
	return "cost-model units"
}
