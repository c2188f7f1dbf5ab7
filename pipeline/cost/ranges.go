package cost

import (
	"fmt"
	"math"
)

// The physical ranges every reader checks a number against where it reads
// it (docs/robustness.md, "Readers", gives the reasoning). A value outside
// the hard range is physically impossible for the hardware pipelab models,
// or too large for a makespan to print as a number, and is an error; a
// value outside the plausible range is a warning, as a unit mistake
// (bandwidth 50 meant as GB/s) most often lands there.

// Times, in seconds: a measured stage time or transfer is 0 (none), or
// from 1 ns (no kernel or message is shorter) to one day (a training
// iteration of one stage that long is a unit mistake, and a makespan of
// sums of such times stays a printable number).
const (
	MinTime = 1e-9
	MaxTime = 86400.0
)

// CheckTime says why a time in seconds is out of range, or returns nil.
func CheckTime(x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("want a finite time, got %g", x)
	case x < 0:
		return fmt.Errorf("must not be negative, got %s", seconds(x))
	case x > 0 && x < MinTime*(1-1e-9): // 1e-6 ms is 0.999...e-9 s in binary
		return fmt.Errorf("%s is below 1 ns, shorter than any kernel or message (0 means none)", seconds(x))
	case x > MaxTime:
		return fmt.Errorf("%s is over one day, too long for one stage's action (is the unit right?)", seconds(x))
	}
	return nil
}

// seconds prints a time with the unit that keeps it short.
func seconds(x float64) string {
	switch a := math.Abs(x); {
	case a == 0 || a >= 1:
		return fmt.Sprintf("%g s", x)
	case a >= 1e-3:
		return fmt.Sprintf("%g ms", x*1e3)
	case a >= 1e-6:
		return fmt.Sprintf("%g µs", x*1e6)
	}
	return fmt.Sprintf("%g ns", x*1e9)
}

// MaxExplicit bounds the explicit costs (--fwd, --bwd, --wgrad, --comm),
// which are in whatever unit the user chose: a makespan sums up to
// millions of them and must stay a finite number that prints as one.
const MaxExplicit = 1e12

// CheckExplicit says which explicit cost is out of range, or returns nil.
func CheckExplicit(fwd, bwd, wgrad, comm float64) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"--fwd", fwd}, {"--bwd", bwd}, {"--wgrad", wgrad}, {"--comm", comm}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) || math.Abs(v.x) > MaxExplicit {
			return fmt.Errorf("%s %g is beyond %g: choose a unit that keeps the times below it (ms, s)", v.name, v.x, MaxExplicit)
		}
	}
	return nil
}

// quantity is a hardware number's ranges: outside [lo, hi] an error,
// outside [warnLo, warnHi] a warning. hint is the unit a bare number
// most likely meant (10^exp of the file's unit), named when the value in
// that unit lands in the plausible range.
type quantity struct {
	what                   string // "a GPU's dense peak", in messages
	unit, unitWords        string // "B/s", "bytes per second"
	lo, hi, warnLo, warnHi float64
	exp                    int
	hint                   string
}

var (
	peakFLOPS       = quantity{what: "a GPU's dense peak", unit: "FLOP/s", unitWords: "FLOP per second", lo: 1e9, hi: 1e18, warnLo: 1e12, warnHi: 2e16, exp: 12, hint: "TFLOP/s"}
	gpuMemory       = quantity{what: "a GPU's memory", unit: "B", unitWords: "bytes", lo: 1e6, hi: 1e14, warnLo: 1e9, warnHi: 2e12, exp: 9, hint: "GB"}
	bandwidth       = quantity{what: "a GPU link's bandwidth", unit: "B/s", unitWords: "bytes per second", lo: 1e6, hi: 1e14, warnLo: 1e8, warnHi: 1e13, exp: 9, hint: "GB/s"}
	memoryBandwidth = quantity{what: "a GPU's memory bandwidth", unit: "B/s", unitWords: "bytes per second", lo: 1e6, hi: 1e14, warnLo: 1e8, warnHi: 1e13, exp: 9, hint: "GB/s"}
	latency         = quantity{what: "a GPU link's latency", unit: "s", unitWords: "seconds", lo: 0, hi: 1, warnLo: 1e-7, warnHi: 1e-3, exp: -6, hint: "µs"}
	// p2pOverhead: a blocking transfer's fixed cost, 0.2 ms for
	// Megatron-LM's on A100s (docs/validation.md); above 10 ms it is more
	// likely milliseconds written as seconds.
	p2pOverhead = quantity{what: "a transfer's point-to-point overhead", unit: "s", unitWords: "seconds", lo: 0, hi: 1, warnLo: 1e-7, warnHi: 1e-2, exp: -6, hint: "µs"}
	// actionGap: the runtime's time between two actions of a rank, about
	// 1 ms for the Zero Bubble paper's on A100s (docs/validation.md); above
	// 10 ms it is more likely milliseconds written as seconds.
	actionGap = quantity{what: "the runtime's gap between two actions", unit: "s", unitWords: "seconds", lo: 0, hi: 1, warnLo: 1e-7, warnHi: 1e-2, exp: -3, hint: "ms"}
)

// check returns an error (impossible) or a warning (implausible) for x;
// both empty when x is plausible. Zero latency is allowed (a free link)
// and not warned about.
func (q quantity) check(x float64) (err, warn string) {
	hint := ""
	if y := x * math.Pow10(q.exp); y >= q.warnLo && y <= q.warnHi {
		hint = fmt.Sprintf("; the file takes %s: %s %s is %se%d", q.unitWords, num(x).Value, q.hint, num(x).Value, q.exp)
	}
	v := q.format(x)
	switch {
	case x > 0 && x < q.lo:
		return fmt.Sprintf("%s is below %s, impossible for %s%s", v, q.format(q.lo), q.what, hint), ""
	case x > q.hi:
		return fmt.Sprintf("%s is above %s, impossible for %s%s", v, q.format(q.hi), q.what, hint), ""
	case x == 0 && q.lo == 0:
		return "", ""
	case x < q.warnLo:
		return "", fmt.Sprintf("%s is below %s, implausible for %s%s", v, q.format(q.warnLo), q.what, hint)
	case x > q.warnHi:
		return "", fmt.Sprintf("%s is above %s, implausible for %s%s", v, q.format(q.warnHi), q.what, hint)
	}
	return "", ""
}

// format prints x in q's unit with an SI prefix (50 B/s, 1 MB/s, 312
// TFLOP/s), seconds as seconds() does.
func (q quantity) format(x float64) string {
	if q.unit == "s" {
		return seconds(x)
	}
	prefixes := []string{"", "k", "M", "G", "T", "P", "E"}
	i := 0
	for i+1 < len(prefixes) && math.Abs(x) >= 1e3*math.Pow10(3*i) {
		i++
	}
	return fmt.Sprintf("%.4g %s%s", x/math.Pow10(3*i), prefixes[i], q.unit)
}
