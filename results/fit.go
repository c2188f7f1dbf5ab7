package results

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// PowerLaw is a fit of y ≈ a·x^b by least squares on log y against log x.
type PowerLaw struct {
	A, B float64
	// Low and High bound b at 95 %: b ± t(0.975, n − 2)·se(b), NaN for
	// fewer than three points.
	Low, High float64
	Points    int
}

// FitPowerLaw fits y ≈ a·x^b to the points with x > 0 and y > 0 (others
// are an error of the caller and are skipped) by ordinary least squares on
// (ln x, ln y). With fewer than two distinct x the fit is NaN.
func FitPowerLaw(xs, ys []float64) PowerLaw {
	var lx, ly []float64
	for i := range xs {
		if xs[i] > 0 && ys[i] > 0 {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(ys[i]))
		}
	}
	nan := math.NaN()
	out := PowerLaw{A: nan, B: nan, Low: nan, High: nan, Points: len(lx)}
	if len(lx) < 2 {
		return out
	}
	mx, my := mean(lx), mean(ly)
	var sxx, sxy float64
	for i := range lx {
		sxx += (lx[i] - mx) * (lx[i] - mx)
		sxy += (lx[i] - mx) * (ly[i] - my)
	}
	if sxx == 0 {
		return out
	}
	out.B = sxy / sxx
	out.A = math.Exp(my - out.B*mx)
	n := len(lx)
	if n < 3 {
		return out
	}
	var sse float64
	for i := range lx {
		r := ly[i] - (my + out.B*(lx[i]-mx))
		sse += r * r
	}
	se := math.Sqrt(sse / float64(n-2) / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
	out.Low, out.High = out.B-t*se, out.B+t*se
	return out
}

// Fits fits the exponent of every gap series: for each experiment,
// objective, optimizer and method, the gap against S at each K with more
// than one S (predicted exponent 4), and against K at each S with more
// than one K (predicted −1), over the per-replicate gaps of the rows
// marked Fitted.
func Fits(gaps []Gap) []ExponentFit {
	type key struct {
		experiment, objective, optimizer, method, variable string
		fixed                                              int32
	}
	series := map[key][]Gap{}
	var keys []key
	add := func(k key, g Gap) {
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		series[k] = append(series[k], g)
	}
	for _, g := range gaps {
		add(key{g.Experiment, g.Objective, g.Optimizer, g.Method, FitStages, g.TotalMicrobatches}, g)
		add(key{g.Experiment, g.Objective, g.Optimizer, g.Method, FitTotalMicrobatches, g.Stages}, g)
	}
	var out []ExponentFit
	for _, k := range keys {
		rows := series[k]
		if len(rows) < 2 {
			continue
		}
		f := ExponentFit{Experiment: k.experiment, Objective: k.objective, Optimizer: k.optimizer, Method: k.method,
			Variable: k.variable, Fixed: k.fixed, Predicted: 4}
		if k.variable == FitTotalMicrobatches {
			f.Predicted = -1
		}
		var xs, ys []float64
		for _, g := range rows {
			if !g.Fitted {
				continue
			}
			f.Levels++
			x := float64(g.Stages)
			if k.variable == FitTotalMicrobatches {
				x = float64(g.TotalMicrobatches)
			}
			for _, v := range g.Gaps {
				xs, ys = append(xs, x), append(ys, v)
			}
		}
		p := FitPowerLaw(xs, ys)
		f.Points = int32(p.Points)
		f.Exponent, f.Low, f.High, f.Coefficient = p.B, p.Low, p.High, p.A
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b ExponentFit) int {
		return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Objective, b.Objective),
			cmp.Compare(a.Optimizer, b.Optimizer), cmp.Compare(a.Method, b.Method),
			cmp.Compare(a.Variable, b.Variable), cmp.Compare(a.Fixed, b.Fixed))
	})
	return out
}
