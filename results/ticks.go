package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// minLogLabels is how many labelled ticks LogTicks aims for on an axis
// spanning up to five decades: enough to read a value off the axis.
const minLogLabels = 4

// LogTicks marks a logarithmic axis at the integer multiples m × 10^k
// and labels some of them. Axes spanning more than five decades are
// labelled at powers of ten only (every second or further power beyond
// twelve decades). Narrower axes are labelled at 1, 2 and 5 × 10^k, and when
// that gives fewer than four labels (data within one or two decades), at
// finer steps in turn until four or more show: every integer multiple,
// then the multiples of 0.5, 0.2 and 0.1 × 10^k, and so on down (0.4,
// 0.45, 0.5, 0.55 on an axis from 0.37 to 0.55), with unlabelled ticks
// at the next finer spacing between them (0.38, 0.39, ...). Every axis
// also has unlabelled ticks at the integer multiples of its decades (at
// the powers of ten only beyond maxMultipleDecades decades).
// Non-positive ranges get no ticks: a log axis cannot show them.
type LogTicks struct{}

var _ plot.Ticker = LogTicks{}

// maxMultipleDecades is the widest span, in decades, whose log axis gets
// an unlabelled tick at every integer multiple m × 10^k.
const maxMultipleDecades = 8

// decimalValue is the number q × 10^e, kept exact for labels and
// comparisons.
type decimalValue struct{ q, e int }

// normal strips trailing zeros of q, so that equal numbers compare equal.
func (d decimalValue) normal() decimalValue {
	for d.q != 0 && d.q%10 == 0 {
		d.q /= 10
		d.e++
	}
	return d
}

func (d decimalValue) float() float64 { return decimal(d.q, d.e) }

// digits is the number of decimal digits of q > 0.
func (d decimalValue) digits() int { return len(strconv.Itoa(d.q)) }

// label writes the number plainly for moderate magnitudes ("0.002",
// "0.45", "50000") and in exponent form otherwise ("2e-6", "2.5e-7", "1e7").
func (d decimalValue) label() string {
	d = d.normal()
	mag := d.e + d.digits() - 1 // the power of ten of the leading digit
	if mag >= -4 && mag <= 5 {
		return strconv.FormatFloat(d.float(), 'f', -1, 64)
	}
	lead := strconv.FormatFloat(decimal(d.q, 1-d.digits()), 'f', -1, 64)
	return fmt.Sprintf("%se%d", lead, mag)
}

// logLevel is one spacing of labels: the mantissas q × 10^-shift of each
// decade [10^k, 10^(k+1)) that are multiples of step × 10^-shift (step ≥
// 1), or 1, 2 and 5 when oneTwoFive is set (with step 1, shift 0).
type logLevel struct {
	oneTwoFive  bool
	step, shift int
}

// finerLevels are the spacings tried after 1-2-5, coarse to fine: every
// integer multiple, then steps of 0.5, 0.2, 0.1, 0.05, ... × 10^k.
func finerLevels() []logLevel {
	levels := []logLevel{{step: 1}}
	for shift := 1; shift <= 6; shift++ {
		for _, step := range []int{5, 2, 1} {
			levels = append(levels, logLevel{step: step, shift: shift})
		}
	}
	return levels
}

// values returns the numbers of the level inside [min, max].
func (l logLevel) values(min, max float64, lo, hi int) []decimalValue {
	var out []decimalValue
	for k := lo; k <= hi; k++ {
		first, last := pow10i(l.shift), 10*pow10i(l.shift) // mantissa range [first, last)
		for q := first; q < last; q += l.step {
			if l.oneTwoFive && q != 1 && q != 2 && q != 5 {
				continue
			}
			d := decimalValue{q, k - l.shift}
			if inside(d.float(), min, max) {
				out = append(out, d.normal())
			}
		}
	}
	return out
}

// Ticks returns the ticks of the range [min, max].
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	span := hi - lo

	var labelled, minor []decimalValue
	switch {
	case span > 5:
		every := (span + 11) / 12 // 1 up to twelve decades
		for k := lo; k <= hi; k++ {
			if d := (decimalValue{1, k}); k%every == 0 && inside(d.float(), min, max) {
				labelled = append(labelled, d)
			}
		}
	default:
		labelled = logLevel{oneTwoFive: true, step: 1}.values(min, max, lo, hi)
		levels := finerLevels()
		for i, l := range levels {
			if len(labelled) >= minLogLabels {
				break
			}
			labelled = l.values(min, max, lo, hi)
			// Unlabelled ticks between the labels, at the next finer
			// spacing, when a finer spacing labels the axis.
			if i+1 < len(levels) {
				minor = levels[i+1].values(min, max, lo, hi)
			}
		}
		labelled = labelLowestDecade(labelled, min, max)
	}

	// Unlabelled ticks at the integer multiples of each decade, or, over
	// more than eight decades, where they would merge into a bar, at the
	// powers of ten alone.
	multiples := logLevel{step: 1}.values(min, max, lo, hi)
	if span > maxMultipleDecades {
		multiples = logLevel{step: 10}.values(min, max, lo, hi)
	}
	var ticks []plot.Tick
	for _, d := range append(multiples, minor...) {
		if !slices.Contains(labelled, d) && !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == d.float() }) {
			ticks = append(ticks, plot.Tick{Value: d.float()})
		}
	}
	for _, d := range labelled {
		ticks = append(ticks, plot.Tick{Value: d.float(), Label: d.label()})
	}
	slices.SortFunc(ticks, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ticks
}

// endDecadeReach is how far, in decades, an axis must reach into its
// lowest decade (a factor 1.41) for that decade to need a label of its own.
const endDecadeReach = 0.15

// labelLowestDecade adds a label in the lowest decade the axis reaches when
// that decade has none and the axis reaches far enough into it: the
// decade's lowest integer multiple on the axis, the one farthest from the
// labels above. Four labels at 1, 2, 5 and 10 on an axis from 0.6 to 12
// leave the data below 1 unlabelled; with this the axis is labelled 0.6
// too. The highest decade needs no such label: every spacing labels its
// power of ten.
func labelLowestDecade(labelled []decimalValue, min, max float64) []decimalValue {
	if len(labelled) == 0 {
		return labelled
	}
	lo := int(math.Floor(math.Log10(min)))
	has := func(a, b float64) bool {
		return slices.ContainsFunc(labelled, func(d decimalValue) bool { return inside(d.float(), a, b) })
	}
	multiples := func(a, b float64) []decimalValue {
		k := int(math.Floor(math.Log10(a)))
		return logLevel{step: 1}.values(a, b, k, k)
	}
	// The bottom decade's part on the axis, [min, 10^(lo+1)).
	if top := decimal(1, lo+1); math.Log10(top/min) >= endDecadeReach && !has(min, top*(1-1e-9)) {
		if m := multiples(min, top*(1-1e-9)); len(m) > 0 {
			labelled = append([]decimalValue{m[0]}, labelled...)
		}
	}
	return labelled
}

// inside reports whether v lies in [min, max], allowing for rounding.
func inside(v, min, max float64) bool {
	return v >= min*(1-1e-12) && v <= max*(1+1e-12)
}

// pow10i returns 10^n for n ≥ 0.
func pow10i(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// decimal returns the float64 nearest to m × 10^k (m × math.Pow10(k) is
// not always the nearest, e.g. 5 × 10^-5).
func decimal(m, k int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return v
}

// maxLinearLabels bounds the labelled ticks of LinearTicks.
const maxLinearLabels = 10

// LinearTicks marks a linear axis at multiples of the finest step of 1, 2
// or 5 × 10^k that gives at most ten intervals over [min, max] (so six to
// ten labels: 0, 0.05, ..., 0.3 on an axis from 0 to 0.337), each label
// written with the decimals the step needs, and places unlabelled ticks
// between them. An empty or non-finite range gets no ticks.
type LinearTicks struct{}

var _ plot.Ticker = LinearTicks{}

// Ticks returns the ticks of the range [min, max].
func (LinearTicks) Ticks(min, max float64) []plot.Tick {
	width := max - min
	if !(width > 0) || math.IsInf(width, 0) {
		return nil
	}
	k := int(math.Floor(math.Log10(width / maxLinearLabels)))
	var step decimalValue
	for _, m := range []int{1, 2, 5, 10} {
		step = decimalValue{m, k}
		if width/step.float() <= maxLinearLabels*(1+1e-9) {
			break
		}
	}
	step = step.normal()
	minors := 5 // unlabelled ticks per step: fifths of 1 and 5, halves of 2
	if step.q == 2 {
		minors = 2
	}
	decimals := max0(-step.e)
	var ticks []plot.Tick
	first := int(math.Ceil(min/step.float()*float64(minors) - 1e-9))
	last := int(math.Floor(max/step.float()*float64(minors) + 1e-9))
	for i := first; i <= last; i++ {
		// The tick's value is i/minors steps: (i·q/minors) × 10^e, kept
		// exact by working in tenths when minors does not divide i·q.
		v := decimal(i*step.q*10/minors, step.e-1)
		t := plot.Tick{Value: v}
		if i%minors == 0 {
			t.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func max0(n int) int { return max(n, 0) }
