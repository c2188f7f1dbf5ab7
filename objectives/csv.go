package objectives

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

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
