package sim

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"pipelab/internal/atomicfile"
	"pipelab/pipeline"
)

// ganttColors colours the bars by action kind: compute in colours,
// transfers in greys; kinds not listed are olive.
var ganttColors = map[pipeline.Kind]color.RGBA{
	pipeline.Forward:        {R: 0x4c, G: 0x72, B: 0xb0, A: 0xff},
	pipeline.Backward:       {R: 0x55, G: 0xa8, B: 0x68, A: 0xff},
	pipeline.BackwardInput:  {R: 0x8c, G: 0xc0, B: 0x5a, A: 0xff},
	pipeline.BackwardWeight: {R: 0xdd, G: 0x84, B: 0x52, A: 0xff},
	pipeline.OverlapFB:      {R: 0x81, G: 0x72, B: 0xb3, A: 0xff},
	pipeline.SendF:          {R: 0x40, G: 0x40, B: 0x40, A: 0xff},
	pipeline.RecvF:          {R: 0x40, G: 0x40, B: 0x40, A: 0xff},
	pipeline.SendB:          {R: 0x90, G: 0x90, B: 0x90, A: 0xff},
	pipeline.RecvB:          {R: 0x90, G: 0x90, B: 0x90, A: 0xff},
	pipeline.ReduceGrad:     {R: 0x93, G: 0x78, B: 0x60, A: 0xff},
}

var ganttOther = color.RGBA{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff}

func ganttColor(k pipeline.Kind) color.RGBA {
	if c, ok := ganttColors[k]; ok {
		return c
	}
	return ganttOther
}

// lighten mixes c with white, by 40% per chunk after a rank's first (at
// most 80%), so that interleaved and V schedules show which chunk runs.
func lighten(c color.RGBA, chunk int) color.RGBA {
	w := min(0.4*float64(chunk), 0.8)
	mix := func(v uint8) uint8 { return uint8(float64(v) + w*(255-float64(v))) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: c.A}
}

// chunkOf returns, for each stage, its position among the stages of its
// rank (0 for the first chunk).
func chunkOf(t *pipeline.Table) []int {
	if t == nil {
		return nil
	}
	chunk := make([]int, t.Stages())
	seen := map[int]int{}
	for s, r := range t.Placement {
		chunk[s] = seen[r]
		seen[r]++
	}
	return chunk
}

// SaveGantt draws tl as a Gantt chart, one lane per rank (rank 0 on top),
// a bar per action coloured by kind (lighter for a rank's later chunks) and
// labelled with its microbatch where it fits, communication as thin grey
// bars under the compute bars, with a legend, axis labels and a title
// naming the family, the shape and the makespan, and writes it
// to path as PNG or SVG by the extension. The file is written to a
// temporary file beside it and renamed.
func SaveGantt(tl *Timeline, path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("sim: Gantt chart %s: extension must be .png or .svg", path)
	}
	p, ranks := ganttPlot(tl)
	width := 10 * vg.Inch
	height := vg.Length(1.4+0.45*float64(ranks)) * vg.Inch
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return fmt.Errorf("sim: Gantt chart %s: %w", path, err)
	}
	return writeAtomically(path, func(f *os.File) error {
		_, err := wt.WriteTo(f)
		return err
	})
}

// ganttTitle names the family, the shape and the makespan.
func ganttTitle(tl *Timeline) string {
	name := "schedule"
	if tl.Table != nil && tl.Table.Family != "" {
		name = tl.Table.Family
	}
	ranks, stages, mbs := 0, 0, 0
	if tl.Table != nil {
		ranks, stages, mbs = tl.Table.Ranks(), tl.Table.Stages(), tl.Table.Microbatches
	}
	return fmt.Sprintf("%s: %d ranks, %d stages, %d microbatches, makespan %s %s",
		name, ranks, stages, mbs, formatTime(timelineEnd(tl)), timeUnit(tl))
}

// timeUnit guesses the timeline's unit, which it does not carry: steps when
// every time is an integer (unit and integer explicit costs), else seconds
// (the GPU model).
func timeUnit(tl *Timeline) string {
	for _, e := range tl.Events {
		if e.Start != math.Trunc(e.Start) || e.End != math.Trunc(e.End) {
			return "s"
		}
	}
	return "steps"
}

func timelineEnd(tl *Timeline) float64 {
	end := 0.0
	for _, e := range tl.Events {
		end = max(end, e.End)
	}
	return end
}

// formatTime prints a time in the simulator's unit with a precision that
// shows both integer steps and fractions of a second.
func formatTime(t float64) string {
	return strconv.FormatFloat(t, 'g', 5, 64)
}

func ganttPlot(tl *Timeline) (*plot.Plot, int) {
	ranks := 0
	if tl.Table != nil {
		ranks = tl.Table.Ranks()
	}
	for _, e := range tl.Events {
		ranks = max(ranks, e.Rank+1)
	}
	ranks = max(ranks, 1)
	p := plot.New()
	p.Title.Text = ganttTitle(tl)
	p.X.Label.Text = "time (" + timeUnit(tl) + ")"
	p.Y.Label.Text = "rank"
	names := make([]string, ranks)
	for r := range ranks {
		names[ranks-1-r] = strconv.Itoa(r)
	}
	p.NominalY(names...)
	bars := &ganttBars{events: tl.Events, ranks: ranks, end: timelineEnd(tl), chunk: chunkOf(tl.Table)}
	bars.label = p.Y.Tick.Label
	bars.label.Color = color.White
	bars.label.XAlign = text.XCenter
	bars.label.YAlign = text.YCenter
	p.Add(bars)
	// The legend sits at the top right, over the room DataRange leaves
	// after the last bar.
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	var kinds []pipeline.Kind
	for _, e := range tl.Events {
		if !slices.Contains(kinds, e.Action.Kind) {
			kinds = append(kinds, e.Action.Kind)
		}
	}
	slices.Sort(kinds)
	seen := map[color.RGBA]bool{}
	for _, k := range kinds {
		c := ganttColor(k)
		if seen[c] {
			continue
		}
		seen[c] = true
		p.Legend.Add(legendName(k), swatch(c))
	}
	if slices.Max(append([]int{0}, bars.chunk...)) > 0 {
		p.Legend.Add("lighter: later chunk", swatch(lighten(ganttColor(pipeline.Forward), 1)))
	}
	return p, ranks
}

// legendName names a kind, pairing sends with their receives.
func legendName(k pipeline.Kind) string {
	switch k {
	case pipeline.Forward:
		return "F forward"
	case pipeline.Backward:
		return "B backward"
	case pipeline.BackwardInput:
		return "I input grad"
	case pipeline.BackwardWeight:
		return "W weight grad"
	case pipeline.OverlapFB:
		return "F&B overlapped"
	case pipeline.SendF, pipeline.RecvF:
		return "SEND/RECV_F"
	case pipeline.SendB, pipeline.RecvB:
		return "SEND/RECV_B"
	case pipeline.ReduceGrad:
		return "REDUCE_GRAD"
	}
	return "other"
}

// swatch is a legend thumbnail filled with one colour.
type swatch color.RGBA

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.RGBA(s), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// ganttBars plots the events as rectangles.
type ganttBars struct {
	events []Event
	ranks  int
	end    float64
	chunk  []int // chunk of each stage on its rank
	label  text.Style
}

// color is the bar colour of an action: its kind's, lighter for later
// chunks.
func (g *ganttBars) color(a pipeline.Action) color.RGBA {
	c := ganttColor(a.Kind)
	if a.Stage >= 0 && a.Stage < len(g.chunk) {
		c = lighten(c, g.chunk[a.Stage])
	}
	return c
}

// DataRange leaves room after the last bar for the legend.
func (g *ganttBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	end := g.end
	if end <= 0 {
		end = 1
	}
	return 0, 1.25 * end, -0.5, float64(g.ranks) - 0.5
}

func (g *ganttBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	gap := vg.Length(0.4)
	for _, e := range g.events {
		lane := float64(g.ranks - 1 - e.Rank)
		lo, hi := lane-0.05, lane+0.4 // compute bars
		if !e.Action.Kind.IsCompute() {
			lo, hi = lane-0.4, lane-0.15 // communication under them
		}
		x0, x1 := trX(e.Start), trX(e.End)
		if x1-x0 > 2*gap {
			x0, x1 = x0+gap, x1-gap
		}
		y0, y1 := trY(lo), trY(hi)
		c.FillPolygon(g.color(e.Action), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if !e.Action.Kind.IsCompute() || !e.Action.Kind.HasMicrobatch() {
			continue
		}
		txt := strconv.Itoa(e.Action.Microbatch)
		if g.label.Width(txt)+2 < x1-x0 && g.label.Height(txt) < y1-y0 {
			c.FillText(g.label, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, txt)
		}
	}
}

// writeAtomically writes path whole or not at all (atomicfile.Write).
func writeAtomically(path string, write func(*os.File) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("sim: writing %s: %w", path, err)
	}
	return nil
}
