package results

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// gapColourRange is the largest |log2(LocalSGD / PipeDream)| the colours
// tell apart: a factor of 4 either way; larger ratios take the end colours.
const gapColourRange = 2.0

// PlotRegimeMap draws, to path, the regime map of runs (RegimeCells): one
// heatmap per stage count S, data size n across and noise σ up. Each
// cell's colour is log2 of the ratio of the methods' mean final losses,
// blue where LocalSGD ends lower and red where PipeDream does, saturating
// at a factor of 4, and its text leads with that ratio, so what is printed
// is what is coloured; under it, in brackets, LocalSGD's final loss minus
// PipeDream's, paired by replicate, as its mean and 95 % t interval, and
// under it the replicates whose gap has the mean's sign, "k of n" (the
// one significance rule, PairedDifferences), with the count of all
// replicates when some were left out. The runs must be of
// one cost model and budget; a (n, σ) with no cell is drawn grey.
func PlotRegimeMap(path string, runs []Run, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	cells, err := RegimeCells(runs)
	if err != nil {
		return err
	}
	if len(cells) == 0 {
		return fmt.Errorf("%w: %s: no selected PipeDream and LocalSGD pairs", ErrNoData, path)
	}
	for _, c := range cells[1:] {
		if c.CostModel != cells[0].CostModel || c.TimeBudget != cells[0].TimeBudget {
			return fmt.Errorf("results: %s: the map mixes cost models or budgets (%s %g and %s %g)",
				path, cells[0].CostModel, cells[0].TimeBudget, c.CostModel, c.TimeBudget)
		}
	}
	var stages, sizes []int32
	var noises []float64
	replicates := 0
	for _, c := range cells {
		replicates = max(replicates, len(c.Replicates))
		stages = appendNew(stages, c.Stages)
		sizes = appendNew(sizes, c.N)
		noises = appendNew(noises, c.Noise)
	}
	slices.Sort(stages)
	slices.Sort(sizes)
	slices.Sort(noises)

	var panels []*plot.Plot
	for _, s := range stages {
		p, err := regimePanel(cells, s, sizes, noises, replicates)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		p.X.Label.Text = "data size n (d = " + describe(runs, func(r *Run) string { return strconv.Itoa(int(r.D)) }) + ")"
		panels = append(panels, p)
	}
	cols := min(2, len(panels))
	rows := (len(panels) + cols - 1) / cols
	panelW, panelH := 5.5*vg.Inch, 3.6*vg.Inch
	header, footer := 0.55*vg.Inch, 0.75*vg.Inch
	width, height := vg.Length(cols)*panelW, vg.Length(rows)*panelH+header+footer
	title := fmt.Sprintf("%s: LocalSGD / PipeDream, final loss at budget %s, %s (best-final step per method)",
		describe(runs, func(r *Run) string { return r.Objective }), formatTime(cells[0].TimeBudget, cells[0].CostModel),
		clockOf(cells[0].CostModel, opts))
	note := "cell and colour: LocalSGD / PipeDream mean final loss (blue: LocalSGD lower; beyond 1/4 and 4 the end colours); under it: LocalSGD − PipeDream paired by seed, its mean, [95 % t interval], k of n seeds with its sign"
	bar := gapColourBar()
	return saveDrawing(path, width, height, func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		head := draw.Crop(c, 0, 0, c.Max.Y-c.Min.Y-header, 0)
		sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 12), Handler: plot.DefaultTextHandler,
			XAlign: draw.XCenter, YAlign: draw.YTop}
		mid := (head.Min.X + head.Max.X) / 2
		head.FillText(sty, vg.Point{X: mid, Y: head.Max.Y - vg.Points(4)}, title)
		sty.Font = font.From(plot.DefaultFont, 9)
		head.FillText(sty, vg.Point{X: mid, Y: head.Max.Y - vg.Points(20)}, note)
		// The colour key, centred under the panels.
		foot := draw.Crop(c, (width-3.5*vg.Inch)/2, -(width-3.5*vg.Inch)/2, 0, -(height - footer))
		bar.Draw(foot)
		body := draw.Crop(c, 0, 0, footer, -header)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
		for i, p := range panels {
			p.Draw(tiles.At(body, i%cols, i/cols))
		}
	})
}

// gapColourBar is the key of the regime map's colours: log2 of the ratio
// of the methods' mean final losses, from −gapColourRange (LocalSGD 4 times
// lower) to +gapColourRange, its ticks written as the ratio they stand for.
func gapColourBar() *plot.Plot {
	p := plot.New()
	p.HideY()
	p.X.Label.Text = "LocalSGD / PipeDream mean final loss (log scale; blue: LocalSGD lower)"
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	p.X.Padding = 0
	p.Add(&plotter.ColorBar{ColorMap: regimeColours()})
	p.X.Tick.Marker = ratioTicks()
	return p
}

// ratioTicks marks the colour key at each power of two of the ratio, from
// 2^-gapColourRange ("≤ 1/4") to 2^gapColourRange ("≥ 4").
func ratioTicks() plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for k := -gapColourRange; k <= gapColourRange; k++ {
		label := strconv.Itoa(1 << int(math.Abs(k)))
		if k < 0 {
			label = "1/" + label
		}
		switch k {
		case -gapColourRange:
			label = "≤ " + label
		case gapColourRange:
			label = "≥ " + label
		}
		ticks = append(ticks, plot.Tick{Value: k, Label: label})
	}
	return ticks
}

// regimeColours is the diverging colour map of the regime map, blue below
// 0 (LocalSGD lower), red above, saturating at ±gapColourRange.
func regimeColours() palette.ColorMap {
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-gapColourRange)
	cm.SetMax(gapColourRange)
	return cm
}

func appendNew[T comparable](xs []T, x T) []T {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// regimeGrid is one panel's cells as a heatmap grid: column i is sizes[i],
// row j noises[j].
type regimeGrid struct {
	z          [][]float64 // z[col][row], NaN where there is no cell
	cols, rows int
}

func (g regimeGrid) Dims() (c, r int)   { return g.cols, g.rows }
func (g regimeGrid) Z(c, r int) float64 { return g.z[c][r] }
func (g regimeGrid) X(c int) float64    { return float64(c) }
func (g regimeGrid) Y(r int) float64    { return float64(r) }

func regimePanel(cells []GapCell, stages int32, sizes []int32, noises []float64, replicates int) (*plot.Plot, error) {
	g := regimeGrid{cols: len(sizes), rows: len(noises), z: make([][]float64, len(sizes))}
	for i := range g.z {
		g.z[i] = make([]float64, len(noises))
		for j := range g.z[i] {
			g.z[i][j] = math.NaN()
		}
	}
	var labels plotter.XYLabels
	for _, c := range cells {
		if c.Stages != stages {
			continue
		}
		i, j := slices.Index(sizes, c.N), slices.Index(noises, c.Noise)
		g.z[i][j] = max(-gapColourRange, min(gapColourRange, c.LogRatio()))
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: float64(j)})
		labels.Labels = append(labels.Labels, gapText(c, replicates))
	}
	pal := regimeColours().Palette(255)
	h := plotter.NewHeatMap(g, pal)
	h.Min, h.Max = -gapColourRange, gapColourRange
	h.NaN = color.Gray{Y: 200}
	p := plot.New()
	p.Title.Text = "S = " + strconv.Itoa(int(stages))
	p.Y.Label.Text = "gradient noise σ"
	p.Add(h)
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YCenter
		l.TextStyle[i].Font.Size = vg.Points(7.5)
	}
	p.Add(l)
	p.X.Tick.Marker = categoryTicks(len(sizes), func(i int) string { return strconv.Itoa(int(sizes[i])) })
	p.Y.Tick.Marker = categoryTicks(len(noises), func(j int) string { return strconv.FormatFloat(noises[j], 'g', -1, 64) })
	p.X.Min, p.X.Max = -0.5, float64(len(sizes))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(noises))-0.5
	return p, nil
}

// gapText is a cell's ratio of mean final losses (the colour's) over its
// paired gap under the one significance rule, mean [interval] and "k of
// n", and how many of all replicates it has when some were left out.
func gapText(c GapCell, replicates int) string {
	p := c.Paired()
	s := fmt.Sprintf("%s×\n%+.2g\n[%+.1g, %+.1g]\n%d of %d", strconv.FormatFloat(math.Exp2(c.LogRatio()), 'g', 2, 64),
		p.Mean, p.Low, p.High, p.Agree, p.N)
	if len(c.Replicates) < replicates {
		s += fmt.Sprintf("\n(of %d replicates)", replicates)
	}
	return s
}

// categoryTicks labels the integer positions 0..n-1.
func categoryTicks(n int, label func(int) string) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, n)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i), Label: label(i)}
	}
	return ticks
}
