package results

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// levelOrder is the order of levels in a comparison: the one nearest to
// a real run last.
var levelOrder = []string{LevelFormula, LevelLockstep, LevelSimulated}

// PlotScheduleComparison draws, to path, a bar chart comparing schedule
// families on one shape: panels for makespan, bubble ratio, peak
// activations and (when any row has a memory model) peak memory, with one
// bar per level for each family. Families are ordered by makespan at the
// most detailed level present. The rows must share ranks, microbatches and
// cost model, and every family must have exactly one row per level present.
// The title names the shape and the clock (WithClock adds the GPU model's
// presets).
func PlotScheduleComparison(path string, metrics []ScheduleMetric, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	if len(metrics) == 0 {
		return fmt.Errorf("results: %s: no schedule metrics: %w", path, ErrNoData)
	}
	first := metrics[0]
	cell, families, levels, err := comparisonCells(path, metrics)
	if err != nil {
		return err
	}

	panels := []metricPanel{
		{label: "makespan (" + timeUnit(first.CostModel) + ")", value: func(m ScheduleMetric) float64 { return m.Makespan }},
		{label: "bubble ratio", value: func(m ScheduleMetric) float64 { return m.BubbleRatio }},
		{label: "peak activations (M_B per rank)", value: func(m ScheduleMetric) float64 { return m.PeakActivations }},
	}
	if slices.ContainsFunc(metrics, hasPeakMemory) {
		// The formulas price no bytes: their bars are n/a, not 0.
		panels = append(panels, metricPanel{label: "peak memory (GiB)", value: func(m ScheduleMetric) float64 { return float64(m.PeakMemoryBytes) / (1 << 30) },
			known: hasPeakMemory})
	}

	width := 9 * vg.Inch
	barWidth := min(vg.Points(28), (width-vg.Inch)/vg.Length(len(families))*0.8/vg.Length(len(levels)))
	plots := make([][]*plot.Plot, len(panels))
	for i, panel := range panels {
		p, err := barPanel(panel, cell, families, levels, barWidth)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		plots[i] = []*plot.Plot{p}
	}
	title := fmt.Sprintf("Schedule families at P = %d ranks, M = %d microbatches, %s", first.Ranks, first.Microbatches, clockOf(first.CostModel, opts))
	note := unitStepNote(metrics)
	var key []keyEntry
	for _, l := range levels {
		key = append(key, keyEntry{levelColor(l), l})
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	header := 0.5 * vg.Inch
	if note != "" {
		header += 0.2 * vg.Inch
	}
	height := vg.Length(len(panels))*2.2*vg.Inch + header
	return saveDrawing(path, width, height, func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		// The title and, under it, the key of the levels' colours, above
		// the panels so that it covers no bar.
		head := draw.Crop(c, 0, 0, c.Max.Y-c.Min.Y-header, 0)
		titleStyle := plot.New().Title.TextStyle
		titleStyle.XAlign, titleStyle.YAlign = text.XCenter, text.YTop
		mid := (head.Min.X + head.Max.X) / 2
		head.FillText(titleStyle, vg.Point{X: mid, Y: head.Max.Y - vg.Points(3)}, title)
		if note != "" {
			noteStyle := plot.New().Legend.TextStyle
			noteStyle.Font.Size = vg.Points(10)
			noteStyle.XAlign, noteStyle.YAlign = text.XCenter, text.YTop
			head.FillText(noteStyle, vg.Point{X: mid, Y: head.Max.Y - vg.Points(21)}, note)
		}
		keyStyle := plot.New().Legend.TextStyle
		keyStyle.Font.Size = vg.Points(10)
		drawKey(head, mid-keyWidth(key, "", keyStyle)/2, head.Min.Y+vg.Points(9), key, "", keyStyle)
		body := draw.Crop(c, 0, 0, 0, -header)
		for i, row := range plot.Align(plots, tiles, body) {
			plots[i][0].Draw(row[0])
		}
	})
}

// levelColor is the colour of a level's bars, the same in every
// comparison, whichever levels it shows.
func levelColor(level string) color.Color { return plotutil.Color(levelRank(level)) }

// metricPanel is one panel of a schedule comparison: the axis label and
// the metric it shows. known, when set, says whether a row has the metric
// at all; a row without it gets no bar and the label "n/a".
type metricPanel struct {
	label string
	value func(ScheduleMetric) float64
	known func(ScheduleMetric) bool
}

// hasPeakMemory reports whether a row prices memory: the formula rows and
// the rows of a model without a memory model hold 0.
func hasPeakMemory(m ScheduleMetric) bool { return m.PeakMemoryBytes > 0 }

// unitStepNote is the line a unit-time comparison carries under its title:
// the unit clock charges every action one step, a chunk's F, B, I or W as
// much as a whole stage's, so a family with V chunks per rank runs V times
// the steps of the same work on one chunk. "" for other clocks.
func unitStepNote(metrics []ScheduleMetric) string {
	if metrics[0].CostModel != CostUnit {
		return ""
	}
	chunked := slices.ContainsFunc(metrics, func(m ScheduleMetric) bool { return m.Chunks > 1 })
	if !chunked {
		return "unit time: every F, B, I and W takes one step"
	}
	return "unit time: every F, B, I and W takes one step, a chunk's as much as a whole stage's (families with V chunks per rank do V× the steps)"
}

// comparisonKey is one bar of a schedule comparison: a family at a level.
type comparisonKey struct{ family, level string }

// comparisonCells indexes metrics by family and level and checks that they
// form a full grid on one shape and cost model. It returns the families in
// order of makespan at the most detailed level present, and the levels from
// the formula to the simulation.
func comparisonCells(path string, metrics []ScheduleMetric) (cell map[comparisonKey]ScheduleMetric, families, levels []string, err error) {
	first := metrics[0]
	cell = map[comparisonKey]ScheduleMetric{}
	for _, m := range metrics {
		if m.Ranks != first.Ranks || m.Microbatches != first.Microbatches || m.CostModel != first.CostModel {
			return nil, nil, nil, fmt.Errorf("results: %s: schedule %q (P = %d, M = %d, %s) and %q (P = %d, M = %d, %s) differ in shape or cost model; compare one at a time",
				path, first.ScheduleID, first.Ranks, first.Microbatches, first.CostModel, m.ScheduleID, m.Ranks, m.Microbatches, m.CostModel)
		}
		k := comparisonKey{m.Family, m.Level}
		if _, dup := cell[k]; dup {
			return nil, nil, nil, fmt.Errorf("results: %s: family %q has two rows at level %q", path, m.Family, m.Level)
		}
		cell[k] = m
		if !slices.Contains(families, m.Family) {
			families = append(families, m.Family)
		}
		if !slices.Contains(levels, m.Level) {
			levels = append(levels, m.Level)
		}
	}
	slices.SortFunc(levels, func(a, b string) int {
		return cmp.Or(cmp.Compare(levelRank(a), levelRank(b)), cmp.Compare(a, b))
	})
	for _, f := range families {
		for _, l := range levels {
			if _, ok := cell[comparisonKey{f, l}]; !ok {
				return nil, nil, nil, fmt.Errorf("results: %s: family %q has no row at level %q", path, f, l)
			}
		}
	}
	detail := levels[len(levels)-1]
	slices.SortFunc(families, func(a, b string) int {
		return cmp.Or(cmp.Compare(cell[comparisonKey{a, detail}].Makespan, cell[comparisonKey{b, detail}].Makespan), cmp.Compare(a, b))
	})
	return cell, families, levels, nil
}

// barPanel draws one panel of a schedule comparison: a group of bars per
// family, one bar per level in the level's colour, each labelled with its
// value.
func barPanel(panel metricPanel, cell map[comparisonKey]ScheduleMetric, families, levels []string, barWidth vg.Length) (*plot.Plot, error) {
	p := newPlot("", "", panel.label)
	p.Y.Min = 0
	p.Y.Tick.Marker = LinearTicks{}
	for li, l := range levels {
		values := make(plotter.Values, len(families))
		known := make([]bool, len(families))
		for fi, f := range families {
			m := cell[comparisonKey{f, l}]
			if known[fi] = panel.known == nil || panel.known(m); known[fi] {
				values[fi] = panel.value(m)
			}
		}
		bars, err := plotter.NewBarChart(values, barWidth)
		if err != nil {
			return nil, fmt.Errorf("%s at level %q: %w", panel.label, l, err)
		}
		bars.Color = levelColor(l)
		bars.LineStyle.Width = 0
		bars.Offset = (vg.Length(li) - vg.Length(len(levels)-1)/2) * barWidth
		p.Add(bars)
		labels, err := barLabels(values, known, bars.Offset)
		if err != nil {
			return nil, fmt.Errorf("%s at level %q: %w", panel.label, l, err)
		}
		p.Add(labels)
	}
	p.NominalX(families...)
	p.X.Min, p.X.Max = -0.5, float64(len(families))-0.5
	p.Y.Max *= 1.15
	return p, nil
}

// levelRank orders levels from the formula to the simulation; unknown
// levels come last.
func levelRank(level string) int {
	if i := slices.Index(levelOrder, level); i >= 0 {
		return i
	}
	return len(levelOrder)
}

// barLabels writes each bar's value above it, and "n/a" where the row has
// no value (its bar is 0 high, so none is drawn).
func barLabels(values plotter.Values, known []bool, offset vg.Length) (*plotter.Labels, error) {
	xy := plotter.XYLabels{XYs: make(plotter.XYs, len(values)), Labels: make([]string, len(values))}
	for i, v := range values {
		xy.XYs[i] = plotter.XY{X: float64(i), Y: v}
		xy.Labels[i] = strconv.FormatFloat(v, 'g', 3, 64)
		if !known[i] {
			xy.Labels[i] = "n/a"
		}
	}
	labels, err := plotter.NewLabels(xy)
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign = text.XCenter
		labels.TextStyle[i].Font.Size = vg.Points(8)
	}
	labels.Offset = vg.Point{X: offset, Y: vg.Points(2)}
	return labels, nil
}
