package results

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// LogTicks marks a logarithmic axis at 1, 2 and 5 × 10^k with labels and
// at the other integer multiples of 10^k without. Axes spanning more than
// five decades are labelled at powers of ten only (every second or further
// power beyond eight decades), and axes narrower than one labelled 1-2-5
// step are labelled at every integer multiple. Non-positive ranges get no
// ticks: a log axis cannot show them.
type LogTicks struct{}

var _ plot.Ticker = LogTicks{}

// Ticks returns the ticks of the range [min, max].
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	span := hi - lo
	labelled := func(m, k int) bool { return m == 1 || m == 2 || m == 5 }
	switch {
	case span > 8:
		every := (span + 7) / 8
		labelled = func(m, k int) bool { return m == 1 && k%every == 0 }
	case span > 5:
		labelled = func(m, k int) bool { return m == 1 }
	case countLabels(min, max, lo, hi, labelled) < 2:
		labelled = func(m, k int) bool { return true }
	}
	var ticks []plot.Tick
	for k := lo; k <= hi; k++ {
		for m := 1; m <= 9; m++ {
			v := decimal(m, k)
			if v < min*(1-1e-12) || v > max*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m, k) {
				t.Label = tickLabel(m, k)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// countLabels counts the labelled values m × 10^k inside [min, max].
func countLabels(min, max float64, lo, hi int, labelled func(m, k int) bool) int {
	n := 0
	for k := lo; k <= hi; k++ {
		for m := 1; m <= 9; m++ {
			if v := decimal(m, k); labelled(m, k) && v >= min*(1-1e-12) && v <= max*(1+1e-12) {
				n++
			}
		}
	}
	return n
}

// decimal returns the float64 nearest to m × 10^k (m × math.Pow10(k) is
// not always the nearest, e.g. 5 × 10^-5).
func decimal(m, k int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return v
}

// tickLabel writes m × 10^k plainly for moderate k ("0.002", "50000") and
// in exponent form otherwise ("2e-6", "1e7").
func tickLabel(m, k int) string {
	if k >= -4 && k <= 5 {
		return strconv.FormatFloat(decimal(m, k), 'f', -1, 64)
	}
	return fmt.Sprintf("%de%d", m, k)
}
