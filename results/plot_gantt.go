package results

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ganttKinds are the kinds a Gantt chart gives a colour of its own, in
// legend order, with their legend text. The fills are light shades, so the
// black microbatch labels stay readable.
var ganttKinds = []ganttKindStyle{
	{"F", "F forward", color.RGBA{R: 0x9e, G: 0xca, B: 0xe1, A: 0xff}},
	{"B", "B backward", color.RGBA{R: 0xfd, G: 0xae, B: 0x6b, A: 0xff}},
	{"I", "I input gradient", color.RGBA{R: 0xa1, G: 0xd9, B: 0x9b, A: 0xff}},
	{"W", "W weight gradient", color.RGBA{R: 0xbc, G: 0xbd, B: 0xdc, A: 0xff}},
	{"OVERLAP_F_B", "F&B overlapped", color.RGBA{R: 0xf2, G: 0xb6, B: 0xd2, A: 0xff}},
}

// ganttKindStyle is how a Gantt chart draws one kind of action.
type ganttKindStyle struct {
	kind, name string // as in TimelineEvent.Kind, and in the legend
	fill       color.Color
}

// reduceKind is the gradient all-reduce between the replicas of a part
// (Chimera's two pipelines), drawn as communication but in a colour of its
// own: it is the one communication no compute hides.
const reduceKind = "REDUCE_GRAD"

// reduceColor fills the gradient all-reduces, otherColor every other
// communication and bookkeeping action.
var (
	reduceColor = color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}
	otherColor  = color.Gray{Y: 0xd0}
)

// ganttKind returns kind's position in ganttKinds, or -1 for a kind drawn
// in otherColor.
func ganttKind(kind string) int {
	return slices.IndexFunc(ganttKinds, func(g ganttKindStyle) bool { return g.kind == kind })
}

func kindColor(kind string) color.Color {
	if i := ganttKind(kind); i >= 0 {
		return ganttKinds[i].fill
	}
	if kind == reduceKind {
		return reduceColor
	}
	return otherColor
}

// PlotGantt draws, to path, the timeline of one schedule as a Gantt chart:
// one row per rank (rank 0 on top), one box per action from its start to
// its end, coloured by kind and labelled with its microbatch (stage:
// microbatch when a rank runs several stages) where the box is wide enough;
// communication runs as thin bars under the compute boxes (the gradient
// all-reduce brown, the rest grey), and the time axis ends at the
// makespan, which its label gives. The key under the chart names the
// colours, and what the box labels are when some box has one. scheduleID picks
// the events; it may be empty when events hold one schedule only. The
// title names the family, shape, level (simulated, lockstep) and clock
// from the schedule's row in schedules when there is one (schedules may be
// nil; WithClock adds the GPU model's presets).
func PlotGantt(path string, events []TimelineEvent, schedules []ScheduleMetric, scheduleID string, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	mine, err := ganttEvents(path, events, scheduleID)
	if err != nil {
		return err
	}
	if scheduleID == "" {
		scheduleID = mine[0].ScheduleID
	}
	g := Gantt{Title: scheduleID, Unit: "cost-model units", Events: mine}
	if m, ok := scheduleRow(schedules, scheduleID); ok {
		g.Title = fmt.Sprintf("%s: %d ranks, %d microbatches, %s, %s", m.Family, m.Ranks, m.Microbatches, m.Level, clockOf(m.CostModel, opts))
		g.Unit = timeUnit(m.CostModel)
	}
	return g.Plot(path)
}

// Gantt is a Gantt chart of one schedule's timeline, as PlotGantt draws it,
// for callers that hold the events and know the title and time unit
// themselves (the simulate and tune commands).
type Gantt struct {
	// Title heads the chart; it should name the schedule, its shape and
	// the cost model (model, GPU, link).
	Title string
	// Unit is the time axis's unit ("s", "steps").
	Unit string
	// Events are the timeline's actions, of one schedule.
	Events []TimelineEvent
}

// Plot draws the chart to path (.png or .svg), written atomically.
func (g Gantt) Plot(path string) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	mine, err := ganttEvents(path, g.Events, "")
	if err != nil {
		return err
	}
	ranks, multiStage := ganttShape(mine)
	makespan := (&ganttBoxes{events: mine}).makespan()
	p := newPlot(g.Title, fmt.Sprintf("time (%s); makespan %s %s", g.Unit, strconv.FormatFloat(makespan, 'g', 4, 64), g.Unit), "")
	p.X.Tick.Marker = LinearTicks{}
	names := make([]string, ranks)
	for r := range ranks {
		names[ranks-1-r] = "rank " + strconv.Itoa(int(r))
	}
	p.NominalY(names...)
	boxes := &ganttBoxes{events: mine, ranks: ranks, multiStage: multiStage, label: p.X.Tick.Label}
	boxes.label.Font.Size = vg.Points(7)
	boxes.label.XAlign, boxes.label.YAlign = text.XCenter, text.YCenter
	p.Add(boxes)
	// The axis ends where the last action ends: no padding past the
	// makespan, so the chart's right edge reads as the iteration's end.
	p.X.Min, p.X.Max = 0, boxes.makespan()
	if p.X.Max <= 0 {
		p.X.Max = 1
	}

	kinds := legendKinds(mine)
	labels := "box label: microbatch"
	if multiStage {
		labels = "box label: stage:microbatch"
	}
	legendStyle := p.X.Tick.Label
	legendStyle.XAlign, legendStyle.YAlign = text.XLeft, text.YCenter
	height := vg.Inch + vg.Length(ranks)*0.4*vg.Inch
	fitTitle(p, 9*vg.Inch)
	return saveDrawing(path, 9*vg.Inch, max(height, 2.5*vg.Inch), func(c draw.Canvas) {
		strip, main := c, c
		strip.Max.Y = c.Min.Y + legendHeight
		main.Min.Y = strip.Max.Y
		p.Draw(main)
		if !boxes.labelled {
			labels = "" // every box too narrow for its label: no key for them
		}
		drawKindLegend(strip, kinds, labels, legendStyle)
	})
}

// ganttEvents returns the events of scheduleID, or of the only schedule in
// events when scheduleID is empty, after checking their ranks and
// intervals.
func ganttEvents(path string, events []TimelineEvent, scheduleID string) ([]TimelineEvent, error) {
	if scheduleID == "" {
		var ids []string
		for _, e := range events {
			if !slices.Contains(ids, e.ScheduleID) {
				ids = append(ids, e.ScheduleID)
			}
		}
		if len(ids) > 1 {
			return nil, fmt.Errorf("results: %s: timeline holds %d schedules %q; name one", path, len(ids), ids)
		}
		if len(ids) == 1 {
			scheduleID = ids[0]
		}
	}
	var mine []TimelineEvent
	for _, e := range events {
		if e.ScheduleID != scheduleID {
			continue
		}
		if e.Rank < 0 || e.Rank >= maxGanttRanks || !(e.Start >= 0) || !(e.End >= e.Start) || math.IsInf(e.End, 0) {
			return nil, fmt.Errorf("results: %s: schedule %q rank %d index %d: bad rank or interval [%g, %g]", path, scheduleID, e.Rank, e.Index, e.Start, e.End)
		}
		mine = append(mine, e)
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("results: %s: no timeline events for schedule %q: %w", path, scheduleID, ErrNoData)
	}
	return mine, nil
}

// ganttShape returns the number of ranks of events and whether some rank
// runs compute of several stages (then boxes are labelled
// stage:microbatch).
func ganttShape(events []TimelineEvent) (ranks int32, multiStage bool) {
	stageOf := map[int32]int32{}
	for _, e := range events {
		ranks = max(ranks, e.Rank+1)
		if !isCompute(e.Kind) {
			continue
		}
		if s, ok := stageOf[e.Rank]; ok && s != e.Stage {
			multiStage = true
		}
		stageOf[e.Rank] = e.Stage
	}
	return ranks, multiStage
}

// isCompute reports whether kind is a compute action, drawn as a full box;
// every other kind (SEND, RECV, REDUCE_GRAD, ...) is drawn as a thin bar
// under them.
func isCompute(kind string) bool { return ganttKind(kind) >= 0 }

// legendKinds lists the kinds of events for a Gantt chart's legend: the
// compute kinds in legend order, then the gradient all-reduce and "" for
// all the other kinds, when there are any.
func legendKinds(events []TimelineEvent) []string {
	var kinds []string
	reduce, other := false, false
	for _, e := range events {
		switch {
		case ganttKind(e.Kind) >= 0:
			if !slices.Contains(kinds, e.Kind) {
				kinds = append(kinds, e.Kind)
			}
		// Zero-length bookkeeping (a RECV that waited for nothing)
		// draws nothing, so it gets no legend entry.
		case e.Kind == reduceKind:
			reduce = reduce || e.End > e.Start
		default:
			other = other || e.End > e.Start
		}
	}
	slices.SortFunc(kinds, func(a, b string) int { return ganttKind(a) - ganttKind(b) })
	if reduce {
		kinds = append(kinds, reduceKind)
	}
	if other {
		kinds = append(kinds, "")
	}
	return kinds
}

// maxGanttRanks bounds the rows of a Gantt chart: more would not be
// readable, and a corrupt rank must not size the figure.
const maxGanttRanks = 1024

// legendHeight is the strip under a Gantt chart that holds its legend.
const legendHeight = 0.35 * vg.Inch

// drawKindLegend draws one swatch and name per kind, left to right, in
// the strip c, then the key of the boxes' labels; the empty kind stands for
// every kind without a colour of its own (communication and bookkeeping
// actions).
func drawKindLegend(c draw.Canvas, kinds []string, labels string, sty text.Style) {
	r := c.Rectangle
	c.FillPolygon(color.White, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	var entries []keyEntry
	for _, k := range kinds {
		name := "communication, other"
		if i := ganttKind(k); i >= 0 {
			name = ganttKinds[i].name
		} else if k == reduceKind {
			name = "gradient all-reduce"
		}
		entries = append(entries, keyEntry{kindColor(k), name})
	}
	drawKey(c, r.Min.X+vg.Points(40), (r.Min.Y+r.Max.Y)/2, entries, labels, sty)
}

// scheduleRow returns the row of id in schedules, preferring the
// simulated level over the lockstep one over the formula.
func scheduleRow(schedules []ScheduleMetric, id string) (ScheduleMetric, bool) {
	best, found := ScheduleMetric{}, false
	pref := map[string]int{LevelSimulated: 3, LevelLockstep: 2, LevelFormula: 1}
	for _, m := range schedules {
		if m.ScheduleID == id && (!found || pref[m.Level] > pref[best.Level]) {
			best, found = m, true
		}
	}
	return best, found
}

// ganttBoxes is the plotter of a Gantt chart's boxes.
type ganttBoxes struct {
	events     []TimelineEvent
	ranks      int32
	multiStage bool
	label      text.Style
	labelled   bool // set by Plot when some box was wide enough for its label
}

// Plot draws one box per compute event and a thin bar under the boxes per
// communication event.
func (g *ganttBoxes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}
	for _, e := range g.events {
		y := float64(g.ranks - 1 - e.Rank)
		lo, hi := y-0.2, y+0.4
		if !isCompute(e.Kind) {
			lo, hi = y-0.4, y-0.25
		}
		x0, x1 := trX(e.Start), trX(e.End)
		y0, y1 := trY(lo), trY(hi)
		box := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(kindColor(e.Kind), c.ClipPolygonXY(box))
		c.StrokeLines(edge, c.ClipLinesXY(append(box, box[0]))...)
		lbl := g.text(e)
		if isCompute(e.Kind) && lbl != "" && g.label.Width(lbl) < x1-x0-vg.Points(1) {
			c.FillText(g.label, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, lbl)
			g.labelled = true
		}
	}
}

// text labels a box with its microbatch, or stage:microbatch.
func (g *ganttBoxes) text(e TimelineEvent) string {
	switch {
	case e.Microbatch < 0:
		return ""
	case g.multiStage:
		return fmt.Sprintf("%d:%d", e.Stage, e.Microbatch)
	}
	return strconv.Itoa(int(e.Microbatch))
}

// makespan is the end of the last event.
func (g *ganttBoxes) makespan() float64 {
	end := 0.0
	for _, e := range g.events {
		end = max(end, e.End)
	}
	return end
}

// DataRange spans the timeline from 0 to its makespan and the ranks' rows.
func (g *ganttBoxes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, g.makespan(), -0.5, float64(g.ranks) - 0.5
}
