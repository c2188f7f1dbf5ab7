package cost

import (
	"fmt"
	"math"
	"strconv"
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
	case x > 0 && x < MinTime:
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
// most likely meant (×scale), named when the value times scale lands in
// the plausible range.
type quantity struct {
	what                   string // "a GPU's peak", in messages
	unit                   string // the file's unit
	lo, hi, warnLo, warnHi float64
	scale                  float64
	hint                   string
}

var (
	peakFLOPS = quantity{what: "a GPU's dense peak", unit: "FLOP/s", lo: 1e9, hi: 1e18, warnLo: 1e12, warnHi: 2e16, scale: 1e12, hint: "TFLOP/s"}
	gpuMemory = quantity{what: "a GPU's memory", unit: "bytes", lo: 1e6, hi: 1e14, warnLo: 1e9, warnHi: 2e12, scale: 1e9, hint: "GB"}
	bandwidth = quantity{what: "a GPU link's bandwidth", unit: "bytes/s", lo: 1e6, hi: 1e14, warnLo: 1e8, warnHi: 1e13, scale: 1e9, hint: "GB/s"}
	latency   = quantity{what: "a GPU link's latency", unit: "s", lo: 0, hi: 1, warnLo: 1e-7, warnHi: 1e-3, scale: 1e-6, hint: "µs"}
)

// check returns an error (impossible) or a warning (implausible) for x;
// both empty when x is plausible. Zero latency is allowed
// (a free link) and not warned about.
func (q quantity) check(x float64) (err, warn string) {
	hint := ""
	if y := x * q.scale; y >= q.warnLo && y <= q.warnHi {
		hint = fmt.Sprintf(" (the file takes %s: %s %s is %s)", q.unit, num(x).Value, q.hint, strconv.FormatFloat(y, 'g', -1, 64))
	}
	switch {
	case x > 0 && x < q.lo:
		return fmt.Sprintf("%g %s is below %g %s, impossible for %s%s", x, q.unit, q.lo, q.unit, q.what, hint), ""
	case x > q.hi:
		return fmt.Sprintf("%g %s is above %g %s, impossible for %s%s", x, q.unit, q.hi, q.unit, q.what, hint), ""
	case x == 0 && q.lo == 0:
		return "", ""
	case x < q.warnLo:
		return "", fmt.Sprintf("%g %s is below %g %s, implausible for %s%s", x, q.unit, q.warnLo, q.unit, q.what, hint)
	case x > q.warnHi:
		return "", fmt.Sprintf("%g %s is above %g %s, implausible for %s%s", x, q.unit, q.warnHi, q.unit, q.what, hint)
	}
	return "", ""
}
