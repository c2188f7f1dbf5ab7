package objectives

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Stream names one of a run's independent random streams. A run seeded
// with seed draws stream st from rand.NewPCG(seed, uint64(st)), so the data,
// the gradient noise and the sampling of a run never share draws, and no
// two runs share a stream.
type Stream uint64

// The named streams of a run (DESIGN.md, "Randomness is explicit").
const (
	StreamData     Stream = iota + 1 // synthetic data sets
	StreamNoise                      // additive gradient noise
	StreamSampling                   // RPD's stage, batch and delay draws
)

// NewRand returns the generator of stream st of the run seeded with seed.
func NewRand(seed uint64, st Stream) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(st)))
}

// Dataset is a design matrix and its targets: Rows examples of Cols
// features, X stored row-major (row i is X[i*Cols:(i+1)*Cols]).
type Dataset struct {
	Rows, Cols int
	X          []float64
	Y          []float64
	// Truth holds the planted weights w* of a generated data set and is nil
	// for loaded data. For the quadratics y = X·w* exactly, so f* = 0.
	Truth []float64
}

// Row returns example i's features.
func (d *Dataset) Row(i int) []float64 { return d.X[i*d.Cols : (i+1)*d.Cols] }

// gaussianMatrix draws an n×d matrix of independent N(0, 1) entries,
// row-major, from rng.
func gaussianMatrix(n, d int, rng *rand.Rand) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// gaussianVector draws d independent N(0, 1) values from rng.
func gaussianVector(d int, rng *rand.Rand) []float64 { return gaussianMatrix(1, d, rng) }

// matVec returns X·w for a row-major n×d matrix X.
func matVec(x []float64, n, d int, w []float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = dot(x[i*d:(i+1)*d], w)
	}
	return out
}

// dot returns a·b, summing four interleaved partial sums so that the
// multiplications pipeline (the order is fixed, so results are
// deterministic).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// ErrEmptyData is returned when a data file holds no rows.
var ErrEmptyData = errors.New("objectives: empty data")

// LoadCSV reads a data set from two files: xPath holds one example per
// line as comma-separated numbers (all lines the same length), yPath one
// target per line. Blank lines are skipped. Errors name the file, the line
// and, for X, the column.
func LoadCSV(xPath, yPath string) (*Dataset, error) {
	xf, err := os.Open(xPath)
	if err != nil {
		return nil, fmt.Errorf("objectives: %w", err)
	}
	defer xf.Close()
	yf, err := os.Open(yPath)
	if err != nil {
		return nil, fmt.Errorf("objectives: %w", err)
	}
	defer yf.Close()
	return ReadCSV(xf, xPath, yf, yPath)
}

// ReadCSV is LoadCSV on readers; xName and yName are the names errors use.
func ReadCSV(xr io.Reader, xName string, yr io.Reader, yName string) (*Dataset, error) {
	ds := &Dataset{}
	err := scanLines(xr, xName, func(line int, text string) error {
		cells := strings.Split(text, ",")
		if ds.Rows == 0 {
			ds.Cols = len(cells)
		} else if len(cells) != ds.Cols {
			return fmt.Errorf("objectives: %s line %d: %d columns, want %d as on the first line", xName, line, len(cells), ds.Cols)
		}
		for c, cell := range cells {
			v, err := parseNumber(cell)
			if err != nil {
				return fmt.Errorf("objectives: %s line %d column %d: %w", xName, line, c+1, err)
			}
			ds.X = append(ds.X, v)
		}
		ds.Rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ds.Rows == 0 {
		return nil, fmt.Errorf("%w: %s has no rows", ErrEmptyData, xName)
	}
	err = scanLines(yr, yName, func(line int, text string) error {
		v, err := parseNumber(text)
		if err != nil {
			return fmt.Errorf("objectives: %s line %d: %w", yName, line, err)
		}
		ds.Y = append(ds.Y, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ds.Y) != ds.Rows {
		return nil, fmt.Errorf("objectives: %s has %d values but %s has %d rows", yName, len(ds.Y), xName, ds.Rows)
	}
	return ds, nil
}

// scanLines calls fn with every non-blank line of r, numbered from 1.
func scanLines(r io.Reader, name string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<28)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("objectives: reading %s: %w", name, err)
	}
	return nil
}

// parseNumber parses one finite number, surrounding spaces allowed.
func parseNumber(cell string) (float64, error) {
	s := strings.TrimSpace(cell)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v-v != 0 {
		return 0, fmt.Errorf("%q is not finite", s)
	}
	return v, nil
}
