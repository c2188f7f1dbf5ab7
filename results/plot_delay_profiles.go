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

// SplitDelayProfiles splits the delays table into its rows over every
// stage's block (PlotDelays) and its per-stage rows (PlotDelayProfiles).
func SplitDelayProfiles(stats []DelayStat) (overall, profiles []DelayStat) {
	for _, d := range stats {
		if d.Stage == AllStages {
			overall = append(overall, d)
		} else {
			profiles = append(profiles, d)
		}
	}
	return overall, profiles
}

// profileSeries is one replay of a delay-profiles figure: a method on a
// schedule family.
type profileSeries struct{ method, kind string }

func (s profileSeries) label() string {
	if s.method == "pipedream" {
		return s.kind
	}
	if s.kind == "pipedream" {
		return s.method
	}
	return s.method + " on " + s.kind
}

// PlotDelayProfiles draws, to path, the per-stage delay profiles: one
// panel per stage count S, the delay of each stage's own block against the
// stage, one colour per replay (a method on a schedule family), its
// largest delay solid and its mean dashed. Every (method, kind, S, stage)
// must appear once.
func PlotDelayProfiles(path string, stats []DelayStat) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	if len(stats) == 0 {
		return fmt.Errorf("results: %s: no per-stage delays: %w", path, ErrNoData)
	}
	stats = slices.Clone(stats)
	slices.SortFunc(stats, func(a, b DelayStat) int {
		return cmp.Or(cmp.Compare(a.Stages, b.Stages), cmp.Compare(a.Method, b.Method), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Stage, b.Stage))
	})
	var stages []int32
	var series []profileSeries
	for i, d := range stats {
		if i > 0 && d.Stages == stats[i-1].Stages && d.Method == stats[i-1].Method && d.Kind == stats[i-1].Kind && d.Stage == stats[i-1].Stage {
			return fmt.Errorf("results: %s: %s on %s, S = %d, stage %d appears twice", path, d.Method, d.Kind, d.Stages, d.Stage)
		}
		if !slices.Contains(stages, d.Stages) {
			stages = append(stages, d.Stages)
		}
		if s := (profileSeries{d.Method, d.Kind}); !slices.Contains(series, s) {
			series = append(series, s)
		}
	}
	slices.SortFunc(series, func(a, b profileSeries) int {
		return cmp.Or(cmp.Compare(a.method, b.method), cmpBool(a.kind != "pipedream", b.kind != "pipedream"), cmp.Compare(a.kind, b.kind))
	})
	panels := make([][]*plot.Plot, 1)
	for pi, st := range stages {
		title := "S = " + strconv.Itoa(int(st))
		if pi == 0 {
			title += ": own block's delay, max solid, mean dashed"
		}
		p := newPlot(title, "stage s", "delay k − j (block updates)")
		p.X.Tick.Marker = profileStageTicks(int(st))
		p.Y.Tick.Marker = LinearTicks{}
		p.Legend.Top = true
		for si, s := range series {
			for _, stat := range []struct {
				name   string
				value  func(DelayStat) float64
				dashes []vg.Length
			}{
				{"max", func(d DelayStat) float64 { return float64(d.Max) }, nil},
				{"mean", func(d DelayStat) float64 { return d.Mean }, []vg.Length{vg.Points(4), vg.Points(2)}},
			} {
				var xy plotter.XYs
				for _, d := range stats {
					if d.Stages == st && d.Method == s.method && d.Kind == s.kind {
						xy = append(xy, plotter.XY{X: float64(d.Stage), Y: stat.value(d)})
					}
				}
				if len(xy) == 0 {
					continue
				}
				line, points, err := plotter.NewLinePoints(xy)
				if err != nil {
					return fmt.Errorf("results: %s: %w", path, err)
				}
				line.Color, line.Dashes, line.Width = plotutil.Color(si), stat.dashes, vg.Points(1.3)
				points.Color, points.Shape, points.Radius = plotutil.Color(si), plotutil.Shape(si), vg.Points(2)
				p.Add(line, points)
				if pi == 0 && stat.name == "max" {
					p.Legend.Add(s.label(), line, points)
				}
			}
		}
		p.Y.Min = 0
		p.Y.Max *= 1 + 0.1*float64(len(series)) // room for the legend above the lines
		panels[0] = append(panels[0], p)
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(stages), PadX: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	width := max(plotWidth, vg.Length(len(stages))*3.6*vg.Inch)
	return saveDrawing(path, width, plotHeight, func(c draw.Canvas) {
		for j, cell := range plot.Align(panels, tiles, c)[0] {
			panels[0][j].Draw(cell)
		}
	})
}

// profileStageTicks labels the stages 0..stages-1, every one up to 8 of them and
// every stages/8-th beyond.
func profileStageTicks(stages int) plot.ConstantTicks {
	every := max(1, stages/8)
	var ticks []plot.Tick
	for s := 0; s < stages; s++ {
		label := ""
		if s%every == 0 {
			label = strconv.Itoa(s)
		}
		ticks = append(ticks, plot.Tick{Value: float64(s), Label: label})
	}
	return ticks
}

// HasMeasuredDelays reports whether runs hold RPD runs with a delay model
// measured on PipeDream's timeline (DelayPipeDreamMean,
// DelayPipeDreamProfile): the runs PlotDelayModels compares.
func HasMeasuredDelays(runs []Run) bool {
	return slices.ContainsFunc(runs, func(r Run) bool { return isRPD(&r) && r.DelayModel != "" && r.DelayModel != DelayUniform })
}

// delayModelLabel names an RPD run's delay model in a legend.
func delayModelLabel(r *Run) string {
	switch r.DelayModel {
	case DelayPipeDreamMean:
		return "rpd, uniform at PipeDream's mean (δ ≤ " + strconv.Itoa(int(r.Delta)) + ")"
	case DelayPipeDreamProfile:
		return "rpd, PipeDream's per-stage trace"
	}
	return "rpd, uniform δ = " + strconv.Itoa(int(r.Delta))
}

// PlotDelayModels draws, to path, PipeDream against RPD under each delay
// model, all at PipeDream's selected step size (so that only the delays
// differ): the loss (the validation loss where the runs have one) against
// block updates, one line per method and delay model, the mean over its
// replicates at the block updates every replicate logged. The runs are one
// objective at one stage count; PipeDream must have a selected run.
func PlotDelayModels(path string, runs []Run, curves []CurvePoint, opts ...PlotOption) error {
	if err := checkFormat(path); err != nil {
		return err
	}
	var step float64
	for _, r := range runs {
		if r.Method == "pipedream" && r.Selected {
			step = r.StepSize
		}
	}
	if step == 0 {
		return fmt.Errorf("results: %s: no selected PipeDream run to take the step size from: %w", path, ErrNoData)
	}
	type model struct {
		method, delays string
		delta          int32
	}
	byModel := map[model][]Run{}
	var models []model
	for _, r := range runs {
		if r.StepSize != step || (r.Method != "pipedream" && !isRPD(&r)) {
			continue
		}
		m := model{r.Method, r.DelayModel, r.Delta}
		if byModel[m] == nil {
			models = append(models, m)
		}
		byModel[m] = append(byModel[m], r)
	}
	slices.SortFunc(models, func(a, b model) int {
		return cmp.Or(cmpBool(a.method != "pipedream", b.method != "pipedream"), cmp.Compare(a.delays, b.delays), cmp.Compare(a.delta, b.delta))
	})
	byRun := map[string][]CurvePoint{}
	for _, p := range curves {
		byRun[p.RunID] = append(byRun[p.RunID], p)
	}
	first := byModel[models[0]][0]
	p := newPlot(fmt.Sprintf("%s, S = %d: PipeDream and RPD's delay models at γ = %s", first.Objective, first.Stages, formatStep(step)),
		"block updates", "loss f(x)")
	setLog(&p.Y)
	p.X.Tick.Marker = LinearTicks{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range models {
		reps := byModel[m]
		sum, count := map[int64]float64{}, map[int64]int{}
		diverged := 0
		for _, r := range reps {
			if r.Diverged() {
				diverged++
			}
			for _, pt := range byRun[r.RunID] {
				y := pt.Loss
				if !math.IsNaN(pt.ValidationLoss) {
					y = pt.ValidationLoss
					p.Y.Label.Text = "validation loss"
				}
				sum[pt.BlockUpdates] += y
				count[pt.BlockUpdates]++
			}
		}
		var xy plotter.XYs
		for k, c := range count {
			if y := sum[k] / float64(c); c == len(reps) && positive(y) {
				xy = append(xy, plotter.XY{X: float64(k), Y: y})
			}
		}
		slices.SortFunc(xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		if len(xy) == 0 {
			continue
		}
		for _, pt := range xy {
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("results: %s: %w", path, err)
		}
		line.Color, line.Width, line.Dashes = plotutil.Color(i), vg.Points(1.5), plotutil.Dashes(i)
		label := "pipedream"
		if m.method == "pipedream" {
			line.Color, line.Width = MethodColor("pipedream"), vg.Points(2.2)
		} else {
			label = delayModelLabel(&reps[0])
		}
		if len(reps) > 1 {
			label += fmt.Sprintf(", mean of %d seeds", len(reps))
		}
		if diverged > 0 {
			label += fmt.Sprintf(", %d diverged", diverged)
		}
		p.Add(line)
		p.Legend.Add(label, line)
	}
	if lo > hi {
		return fmt.Errorf("results: %s: no finite losses: %w", path, ErrNoData)
	}
	p.Y.Min, p.Y.Max = lo, hi
	legendRoom(p, len(models)+addReferenceLosses(p, opts))
	return savePlot(path, p, plotWidth, plotHeight)
}
