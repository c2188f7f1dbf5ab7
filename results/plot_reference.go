package results

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ReferenceLoss is a level a loss axis is read against: for the character
// LM, the held-out loss of a count model of its corpus
// (objectives/charlm.CountModels), e.g. {"trigram count model", 2.049}.
type ReferenceLoss struct {
	Label string
	Loss  float64
}

// WithReferenceLosses draws each reference as a thin grey horizontal line
// across a loss plot (the curves of PlotLossVsTime and PlotLossVsUpdates,
// the finals of PlotFinalVsStages), named with its value in the legend;
// the loss axis grows to hold every one, 2 % beyond it.
func WithReferenceLosses(refs ...ReferenceLoss) PlotOption {
	return func(o *plotOptions) { o.references = refs }
}

// referenceGrey is the reference lines' colour, lighter than any line
// style's.
var referenceGrey = color.Gray{Y: 140}

// referencePad is the factor by which a reference line that widens the
// loss axis stays inside the axis's new end.
const referencePad = 1.02

// addReferenceLosses draws opts' reference losses on p and widens its Y
// range to hold them; it returns the legend entries added.
func addReferenceLosses(p *plot.Plot, opts []PlotOption) int {
	var o plotOptions
	for _, f := range opts {
		f(&o)
	}
	n := 0
	for i, r := range o.references {
		if !positive(r.Loss) || math.IsInf(r.Loss, 0) {
			continue
		}
		level := r.Loss
		line := plotter.NewFunction(func(float64) float64 { return level })
		line.Color = referenceGrey
		line.Width = vg.Points(0.75)
		line.Dashes = []vg.Length{vg.Points(1 + float64(i)), vg.Points(2)}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s %.3f", r.Label, r.Loss), line)
		// A line that widens the axis sits 2 % inside its new end, off
		// the axis line.
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, level/referencePad), math.Max(p.Y.Max, level*referencePad)
		n++
	}
	return n
}
