package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// File names of the tables the gap figures (staleness-law,
// optimizers-under-delay) derive from the runs when they are plotted.
const (
	GapsFile = "gaps.parquet"
	FitsFile = "fits.parquet"
)

// Loss kinds a Gap is measured on (and MetricHeldOut, Run.HeldOutLoss).
const (
	LossFinal      = "final"      // Run.FinalLoss, the objective at the end
	LossValidation = "validation" // the last record's held-out loss (CurvePoint.ValidationLoss)
)

// Gap is one row of the gaps table: a method's loss minus its baseline's
// (sync), each at the step size its group's selection rule chose, paired
// by replicate, at one stage count S and microbatch count K, for one
// objective and optimizer.
type Gap struct {
	Experiment        string
	Objective         string
	Optimizer         string
	Method            string
	Baseline          string
	Stages            int32
	TotalMicrobatches int32  // K: the microbatches N each method was given
	Loss              string // LossFinal or LossValidation
	Replicates        int32  // replicates where both runs finished
	// Mean, SD (sample, n − 1; 0 for one replicate), Min and Max are
	// over the paired per-replicate gaps; Low and High are Mean's 95 % t
	// interval and Agree the replicates whose gap has Mean's sign
	// (PairedDifferences, the one significance rule).
	Mean, SD, Min, Max float64
	Low, High          float64
	Agree              int32
	// MethodLoss and BaselineLoss are the two losses' means.
	MethodLoss, BaselineLoss   float64
	StepSize, BaselineStepSize float64
	// AtEdge is set when either selected step is the smallest or the
	// largest of its grid: the tuned loss is then a bound.
	AtEdge bool
	// Fitted is set when the gap is a positive claim under the rule
	// (Paired.Holds, Mean > 0) and every replicate's gap is positive, so
	// that each has a logarithm: then an exponent fit (Fits) uses its
	// points.
	Fitted bool
	// Gaps holds the per-replicate gaps, in replicate order (not written
	// to the table; Mean and the interval summarise them).
	Gaps []float64
}

// Paired is the gap under the one significance rule.
func (g Gap) Paired() Paired {
	return Paired{N: int(g.Replicates), Agree: int(g.Agree), Mean: g.Mean, Low: g.Low, High: g.High}
}

// fittable reports whether a gap's points enter an exponent fit.
func fittable(p Paired) bool { return p.Sign() == 1 && p.Agree == p.N }

var gapTable = table[Gap]{kind: "gaps", columns: []column[Gap]{
	stringCol("experiment", func(g *Gap) *string { return &g.Experiment }),
	stringCol("objective", func(g *Gap) *string { return &g.Objective }),
	stringCol("optimizer", func(g *Gap) *string { return &g.Optimizer }),
	stringCol("method", func(g *Gap) *string { return &g.Method }),
	stringCol("baseline", func(g *Gap) *string { return &g.Baseline }),
	int32Col("stages", func(g *Gap) *int32 { return &g.Stages }),
	int32Col("total_microbatches", func(g *Gap) *int32 { return &g.TotalMicrobatches }),
	stringCol("loss_kind", func(g *Gap) *string { return &g.Loss }),
	int32Col("replicates", func(g *Gap) *int32 { return &g.Replicates }),
	float64Col("gap_mean", func(g *Gap) *float64 { return &g.Mean }),
	float64Col("gap_sd", func(g *Gap) *float64 { return &g.SD }),
	float64Col("gap_min", func(g *Gap) *float64 { return &g.Min }),
	float64Col("gap_max", func(g *Gap) *float64 { return &g.Max }),
	nullableFloat64Col("gap_low", func(g *Gap) *float64 { return &g.Low }),
	nullableFloat64Col("gap_high", func(g *Gap) *float64 { return &g.High }),
	int32Col("seeds_agree", func(g *Gap) *int32 { return &g.Agree }),
	float64Col("method_loss", func(g *Gap) *float64 { return &g.MethodLoss }),
	float64Col("baseline_loss", func(g *Gap) *float64 { return &g.BaselineLoss }),
	float64Col("step_size", func(g *Gap) *float64 { return &g.StepSize }),
	float64Col("baseline_step_size", func(g *Gap) *float64 { return &g.BaselineStepSize }),
	boolCol("at_edge", func(g *Gap) *bool { return &g.AtEdge }),
	boolCol("fitted", func(g *Gap) *bool { return &g.Fitted }),
}}

// GapSchema returns the Arrow schema of the gaps table.
func GapSchema() *arrow.Schema { return gapTable.schema() }

// WriteGaps writes gaps to the Parquet file at path.
func WriteGaps(path string, gaps []Gap) error { return writeTable(path, &gapTable, gaps) }

// ReadGaps reads the gaps table at path (without the per-replicate gaps).
func ReadGaps(path string) ([]Gap, error) { return readTable(path, &gapTable) }

// ExponentFit is one row of the fits table: the exponent b of gap ≈ a·x^b,
// x the stage count S at fixed K or K at fixed S, fitted by least squares
// on log gap against log x over every replicate's gap at the x whose gap
// is a positive claim with every replicate positive (Gap.Fitted), with a 95 % t-interval on the
// slope (n − 2 degrees of freedom).
type ExponentFit struct {
	Experiment string
	Objective  string
	Optimizer  string
	Method     string
	Variable   string // "stages" or "total_microbatches": what x is
	Fixed      int32  // the other one's value
	Levels     int32  // distinct x fitted
	Points     int32  // (x, replicate) points fitted
	// Exponent is b, Low and High its 95 % interval; Coefficient is a.
	// NaN (null) when fewer than two levels, or for the interval fewer
	// than three points, are fitted.
	Exponent, Low, High, Coefficient float64
	// Predicted is the paper's exponent: 4 for S at fixed K (γ²S⁴ at a
	// tuned step, S⁴/K), −1 for K (docs/reference.md §1).
	Predicted float64
}

// Fit variables.
const (
	FitStages            = "stages"
	FitTotalMicrobatches = "total_microbatches"
)

var fitTable = table[ExponentFit]{kind: "fits", columns: []column[ExponentFit]{
	stringCol("experiment", func(f *ExponentFit) *string { return &f.Experiment }),
	stringCol("objective", func(f *ExponentFit) *string { return &f.Objective }),
	stringCol("optimizer", func(f *ExponentFit) *string { return &f.Optimizer }),
	stringCol("method", func(f *ExponentFit) *string { return &f.Method }),
	stringCol("fit_variable", func(f *ExponentFit) *string { return &f.Variable }),
	int32Col("fixed_value", func(f *ExponentFit) *int32 { return &f.Fixed }),
	int32Col("levels", func(f *ExponentFit) *int32 { return &f.Levels }),
	int32Col("points", func(f *ExponentFit) *int32 { return &f.Points }),
	nullableFloat64Col("exponent", func(f *ExponentFit) *float64 { return &f.Exponent }),
	nullableFloat64Col("exponent_low", func(f *ExponentFit) *float64 { return &f.Low }),
	nullableFloat64Col("exponent_high", func(f *ExponentFit) *float64 { return &f.High }),
	nullableFloat64Col("coefficient", func(f *ExponentFit) *float64 { return &f.Coefficient }),
	float64Col("predicted_exponent", func(f *ExponentFit) *float64 { return &f.Predicted }),
}}

// FitSchema returns the Arrow schema of the fits table.
func FitSchema() *arrow.Schema { return fitTable.schema() }

// WriteFits writes fits to the Parquet file at path.
func WriteFits(path string, fits []ExponentFit) error { return writeTable(path, &fitTable, fits) }

// ReadFits reads the fits table at path.
func ReadFits(path string) ([]ExponentFit, error) { return readTable(path, &fitTable) }

// gapGroup is what makes a selected run comparable with its baseline.
type gapGroup struct {
	experiment, objective, optimizer, cost string
	stages, totalMicrobatches              int32
}

// lastValidation returns each run's last record's held-out loss (NaN
// where it has none).
func lastValidation(curves []CurvePoint) map[string]float64 {
	out := map[string]float64{}
	last := map[string]int64{}
	for _, c := range curves {
		if u, ok := last[c.RunID]; ok && u > c.BlockUpdates {
			continue
		}
		last[c.RunID] = c.BlockUpdates
		out[c.RunID] = c.ValidationLoss
	}
	return out
}

// Gaps pairs every selected run (Selected set, as experiments.SelectSteps
// leaves them) of a method other than baseline with the selected baseline
// run of its experiment, objective, optimizer, cost model, S and K, by
// replicate, and returns one Gap per method and cell, sorted. The loss is
// the one the cell's steps were selected on (gapLoss). A replicate where either run diverged is left
// out; a cell with no pair left is left out.
func Gaps(runs []Run, curves []CurvePoint, baseline string) ([]Gap, error) {
	val := lastValidation(curves)
	type cellKey struct {
		g      gapGroup
		method string
	}
	grid := map[cellKey][]float64{} // every step of the group's grid
	selected := map[cellKey]map[int32]*Run{}
	for i := range runs {
		r := &runs[i]
		k := cellKey{gapGroup{r.Experiment, r.Objective, r.Optimizer, r.CostModel, r.Stages, r.TotalMicrobatches}, methodLabel(r)}
		if !slices.Contains(grid[k], r.StepSize) {
			grid[k] = append(grid[k], r.StepSize)
		}
		if !r.Selected {
			continue
		}
		if selected[k] == nil {
			selected[k] = map[int32]*Run{}
		}
		if o := selected[k][r.Replicate]; o != nil {
			return nil, fmt.Errorf("results: runs %s and %s: two selected %s runs at S = %d, K = %d, replicate %d",
				o.RunID, r.RunID, r.Method, r.Stages, r.TotalMicrobatches, r.Replicate)
		}
		selected[k][r.Replicate] = r
	}
	atEdge := func(k cellKey, step float64) bool {
		g := grid[k]
		return len(g) > 1 && (step == slices.Min(g) || step == slices.Max(g))
	}
	var out []Gap
	for k, reps := range selected {
		if k.method == baseline {
			continue
		}
		base := selected[cellKey{k.g, baseline}]
		if base == nil {
			continue
		}
		loss := gapLoss(reps, base, val)
		g := Gap{Experiment: k.g.experiment, Objective: k.g.objective, Optimizer: k.g.optimizer, Method: k.method,
			Baseline: baseline, Stages: k.g.stages, TotalMicrobatches: k.g.totalMicrobatches, Loss: loss}
		var ms, bs []float64
		for _, rep := range slices.Sorted(maps.Keys(reps)) {
			m, b := reps[rep], base[rep]
			if b == nil || m.Diverged() || b.Diverged() {
				continue
			}
			ml, bl := m.FinalLoss, b.FinalLoss
			switch loss {
			case LossValidation:
				ml, bl = val[m.RunID], val[b.RunID]
			case MetricHeldOut:
				ml, bl = m.HeldOutLoss, b.HeldOutLoss
			}
			g.StepSize, g.BaselineStepSize = m.StepSize, b.StepSize
			g.AtEdge = g.AtEdge || atEdge(k, m.StepSize) || atEdge(cellKey{k.g, baseline}, b.StepSize)
			ms, bs = append(ms, ml), append(bs, bl)
			g.Gaps = append(g.Gaps, ml-bl)
		}
		if len(g.Gaps) == 0 {
			continue
		}
		g.Replicates = int32(len(g.Gaps))
		g.Mean, g.SD = mean(g.Gaps), sampleSD(g.Gaps)
		g.Min, g.Max = slices.Min(g.Gaps), slices.Max(g.Gaps)
		g.MethodLoss, g.BaselineLoss = mean(ms), mean(bs)
		p := PairedDifferences(g.Gaps)
		g.Low, g.High, g.Agree = p.Low, p.High, int32(p.Agree)
		g.Fitted = fittable(p)
		out = append(out, g)
	}
	slices.SortFunc(out, compareGaps)
	return out, nil
}

// gapLoss is the loss a cell's gap is measured on: the one its steps were
// selected on (SelectionMetric), so that the gap reports what was
// selected. The held-out loss is the last record's validation loss
// (LossValidation) where every run has one (the LM), the runs' held-out
// loss (MetricHeldOut) otherwise; the training loss (LossFinal) under
// best-final-training or where a run has neither.
func gapLoss(reps, base map[int32]*Run, val map[string]float64) string {
	var all []*Run
	for _, m := range []map[int32]*Run{reps, base} {
		for _, r := range m {
			all = append(all, r)
		}
	}
	rule := ""
	if len(all) > 0 {
		rule = all[0].SelectionRule
	}
	if SelectionMetric(rule, all) != MetricHeldOut {
		return LossFinal
	}
	for _, r := range all {
		if math.IsNaN(validationOr(val, r)) {
			return MetricHeldOut
		}
	}
	return LossValidation
}

func validationOr(val map[string]float64, r *Run) float64 {
	v, ok := val[r.RunID]
	if !ok {
		return math.NaN()
	}
	return v
}

func compareGaps(a, b Gap) int {
	return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Objective, b.Objective),
		cmp.Compare(a.Optimizer, b.Optimizer), cmp.Compare(a.Method, b.Method),
		cmp.Compare(a.TotalMicrobatches, b.TotalMicrobatches), cmp.Compare(a.Stages, b.Stages))
}

// sampleSD is the standard deviation with n − 1 in the denominator; 0
// for fewer than two values.
func sampleSD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}
