package results

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// symLogScale is a symmetric-log axis: linear within ±C of zero,
// logarithmic beyond, f(y) = sign(y)·log10(1 + |y|/C), so that values of
// either sign and of many magnitudes show on one axis (a gap that a log
// axis would drop when it is negative).
type symLogScale struct{ C float64 }

func (s symLogScale) f(y float64) float64 {
	return math.Copysign(math.Log10(1+math.Abs(y)/s.C), y)
}

// Normalize maps y in [lo, hi] to [0, 1].
func (s symLogScale) Normalize(lo, hi, y float64) float64 {
	a, b := s.f(lo), s.f(hi)
	return (s.f(y) - a) / (b - a)
}

// symLogTicks marks zero and ±C·10^k inside the range, labelled in %g;
// ±C itself, which crowds zero, only where the range spans under two
// decades beyond it.
type symLogTicks struct{ C float64 }

// Ticks returns the ticks between lo and hi.
func (t symLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	first := 0
	if math.Max(math.Abs(lo), math.Abs(hi)) >= 100*t.C {
		first = 1
	}
	for k := first; k < 12; k++ {
		v := t.C * math.Pow(10, float64(k))
		for _, x := range []float64{v, -v} {
			if x >= lo && x <= hi {
				ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 2, 64)})
			}
		}
	}
	return ticks
}

// symLogLinear is the width C of a symmetric-log axis's linear part for
// values vs: the power of ten at or below the smallest nonzero magnitude,
// so that every value but zero lies in the logarithmic part.
func symLogLinear(vs []float64) float64 {
	m := math.Inf(1)
	for _, v := range vs {
		if a := math.Abs(v); a > 0 && a < m && !math.IsInf(a, 0) {
			m = a
		}
	}
	if math.IsInf(m, 1) {
		return 1
	}
	return math.Pow(10, math.Floor(math.Log10(m)))
}
