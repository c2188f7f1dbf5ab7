package optim

import (
	"errors"
	"fmt"
	"math"
)

// PowersOfTwo returns the step-size grid 2^lo, 2^(lo+1), ..., 2^hi.
func PowersOfTwo(lo, hi int) []float64 {
	var g []float64
	for e := lo; e <= hi; e++ {
		g = append(g, math.Ldexp(1, e))
	}
	return g
}

// ErrNoStepSize is returned when no step size of a grid qualifies: all
// diverged, or none passed the rule.
var ErrNoStepSize = errors.New("optim: no step size qualifies")

// Choice is the step size a rule picked from a grid.
type Choice struct {
	Index    int     // position in the grid
	StepSize float64 // the step size
	Score    float64 // the value the rule ranked by (lower is better)
	Rule     string  // the rule's name, to record with the results
}

// Rule chooses a step size from a grid given the runs at each step
// (runs[i] holds one result per seed for steps[i]). A step size with a
// diverged run is never chosen.
type Rule interface {
	Name() string
	Choose(steps []float64, runs [][]*Result) (Choice, error)
}

// BestFinal chooses the step size with the lowest final loss averaged over
// seeds: the honest default of docs/reference.md §1.7.
type BestFinal struct{}

// Name returns "best-final".
func (BestFinal) Name() string { return "best-final" }

// Choose picks the lowest mean final loss; ties go to the smaller step.
func (b BestFinal) Choose(steps []float64, runs [][]*Result) (Choice, error) {
	best := Choice{Index: -1, Rule: b.Name(), Score: math.Inf(1)}
	for i := range steps {
		if !usable(runs, i) {
			continue
		}
		var sum float64
		for _, r := range runs[i] {
			sum += r.FinalLoss
		}
		if mean := sum / float64(len(runs[i])); mean < best.Score || (mean == best.Score && steps[i] < best.StepSize) {
			best = Choice{Index: i, StepSize: steps[i], Score: mean, Rule: b.Name()}
		}
	}
	if best.Index < 0 {
		return best, fmt.Errorf("%w: every step size diverged (%s)", ErrNoStepSize, b.Name())
	}
	return best, nil
}

// usable reports whether step i has runs and none of them diverged.
func usable(runs [][]*Result, i int) bool {
	if i >= len(runs) || len(runs[i]) == 0 {
		return false
	}
	for _, r := range runs[i] {
		if r == nil || r.Diverged || math.IsNaN(r.FinalLoss) || math.IsInf(r.FinalLoss, 0) {
			return false
		}
	}
	return true
}

// Stable is the reference's "stable" rule (docs/reference.md §1.7). On the
// loss curve averaged over seeds, with the tail its last TailFraction of
// records, a step size is stable when the tail's coefficient of variation
// is at most MaxCV, the share of upward moves in the tail at most
// MaxUpShare, the largest upward move in the tail at most MaxUpStep times
// the tail mean, the total variation of the whole curve at most
// MaxVariation times its net change, and the least-squares slope of the
// log loss over the tail (per record) at most MaxLogSlope. Among stable
// steps whose tail mean is within Tolerance of the best, the smallest step
// is chosen. Zero fields take the reference's values; TailFraction, which
// the reference's description does not give, defaults to 0.25.
//
// The rule rejects every fast, linearly converging curve (its tail varies
// by orders of magnitude), which is why BestFinal is the default.
type Stable struct {
	TailFraction float64 // default 0.25
	MaxCV        float64 // default 0.15
	MaxUpShare   float64 // default 0.45
	MaxUpStep    float64 // default 0.05
	MaxVariation float64 // default 5
	MaxLogSlope  float64 // default 1e-4
	Tolerance    float64 // default 0.05
}

// Name returns "stable".
func (Stable) Name() string { return "stable" }

func (st Stable) withDefaults() Stable {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&st.TailFraction, 0.25)
	def(&st.MaxCV, 0.15)
	def(&st.MaxUpShare, 0.45)
	def(&st.MaxUpStep, 0.05)
	def(&st.MaxVariation, 5)
	def(&st.MaxLogSlope, 1e-4)
	def(&st.Tolerance, 0.05)
	return st
}

// Choose applies the rule.
func (st Stable) Choose(steps []float64, runs [][]*Result) (Choice, error) {
	p := st.withDefaults()
	tails := make([]float64, len(steps))
	stable := make([]bool, len(steps))
	best := math.Inf(1)
	for i := range steps {
		if !usable(runs, i) {
			continue
		}
		curve := meanCurve(runs[i])
		tails[i], stable[i] = p.judge(curve)
		if stable[i] {
			best = min(best, tails[i])
		}
	}
	choice := Choice{Index: -1, Rule: p.Name()}
	for i := range steps {
		if stable[i] && tails[i] <= best*(1+p.Tolerance) && (choice.Index < 0 || steps[i] < choice.StepSize) {
			choice = Choice{Index: i, StepSize: steps[i], Score: tails[i], Rule: p.Name()}
		}
	}
	if choice.Index < 0 {
		return choice, fmt.Errorf("%w: no step size is stable (%s)", ErrNoStepSize, p.Name())
	}
	return choice, nil
}

// meanCurve averages the seeds' recorded losses record by record, over the
// records all seeds have.
func meanCurve(runs []*Result) []float64 {
	n := len(runs[0].Records)
	for _, r := range runs {
		n = min(n, len(r.Records))
	}
	c := make([]float64, n)
	for _, r := range runs {
		for k := range c {
			c[k] += r.Records[k].Loss / float64(len(runs))
		}
	}
	return c
}

// judge returns the tail mean of a curve and whether it is stable.
func (st Stable) judge(c []float64) (tailMean float64, ok bool) {
	if len(c) < 3 {
		return 0, false
	}
	nt := max(3, int(math.Ceil(st.TailFraction*float64(len(c)))))
	nt = min(nt, len(c))
	tail := c[len(c)-nt:]
	var sum, sq float64
	for _, v := range tail {
		sum += v
	}
	tailMean = sum / float64(nt)
	for _, v := range tail {
		sq += (v - tailMean) * (v - tailMean)
	}
	cv := math.Sqrt(sq/float64(nt)) / math.Abs(tailMean)

	ups, maxUp := 0, 0.0
	for k := 1; k < nt; k++ {
		if d := tail[k] - tail[k-1]; d > 0 {
			ups++
			maxUp = max(maxUp, d)
		}
	}
	var variation float64
	for k := 1; k < len(c); k++ {
		variation += math.Abs(c[k] - c[k-1])
	}
	net := math.Abs(c[len(c)-1] - c[0])

	ok = cv <= st.MaxCV &&
		float64(ups)/float64(nt-1) <= st.MaxUpShare &&
		maxUp <= st.MaxUpStep*tailMean &&
		variation <= st.MaxVariation*net &&
		logSlope(tail) <= st.MaxLogSlope
	return tailMean, ok
}

// logSlope is the least-squares slope of ln(v) against the index; a
// non-positive value counts as no slope bound passed (+Inf).
func logSlope(v []float64) float64 {
	n := float64(len(v))
	var sx, sy, sxx, sxy float64
	for i, y := range v {
		if !(y > 0) {
			return math.Inf(1)
		}
		x, ly := float64(i), math.Log(y)
		sx, sy, sxx, sxy = sx+x, sy+ly, sxx+x*x, sxy+x*ly
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
