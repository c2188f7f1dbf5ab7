package inputfile

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// decimal is the number syntax of a cell: an optional sign, digits with an
// optional fraction, an optional exponent. Go's strconv.ParseFloat also
// takes hexadecimal (0x1p3), underscores (1_000), Inf and NaN, which no
// spreadsheet or profiler writes and which read as something else than the
// user meant.
var decimal = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// integer is the syntax of a count or an index: digits only.
var integer = regexp.MustCompile(`^[0-9]+$`)

// ParseDecimal reads a finite decimal number (as 12, -0.5, 3e-6) and
// nothing else: no hexadecimal, no underscores, no Inf or NaN, and no
// value beyond float64's range (1e400). The error quotes s short.
func ParseDecimal(s string) (float64, error) {
	if !decimal.MatchString(s) {
		return 0, fmt.Errorf("want a decimal number, got %s", Quote(s))
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%s is out of range", Quote(s))
	}
	return x, nil
}

// ParseIndex reads a whole number from 0 to max, digits only.
func ParseIndex(s string, max int) (int, error) {
	if !integer.MatchString(s) {
		return 0, fmt.Errorf("want a whole number, got %s", Quote(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > max {
		return 0, fmt.Errorf("%s is out of range (at most %d)", Quote(s), max)
	}
	return n, nil
}
