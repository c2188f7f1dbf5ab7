package optim

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// LoadDelayTrace reads a delay trace file (see ReadDelayTrace).
func LoadDelayTrace(path string) (*DelayTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("optim: %w", err)
	}
	defer f.Close()
	return ReadDelayTrace(f, path)
}

// ReadDelayTrace reads a delay trace: one block update per line,
// "stage,batch,d_0,...,d_{S-1}" as non-negative integers, every line the
// same width, an optional header line starting with "stage". Iteration k
// of RPD replays line k. Errors name the file, the line and the column.
func ReadDelayTrace(r io.Reader, name string) (*DelayTable, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<24)
	dt := &DelayTable{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || (len(dt.Rows) == 0 && strings.HasPrefix(text, "stage")) {
			continue
		}
		cells := strings.Split(text, ",")
		if dt.Stages == 0 {
			if len(cells) < 3 {
				return nil, fmt.Errorf("optim: %s line %d: %d columns, want stage, batch and one delay per stage", name, line, len(cells))
			}
			dt.Stages = len(cells) - 2
		}
		if len(cells) != dt.Stages+2 {
			return nil, fmt.Errorf("optim: %s line %d: %d columns, want %d", name, line, len(cells), dt.Stages+2)
		}
		vals := make([]int, len(cells))
		for c, cell := range cells {
			v, err := strconv.Atoi(strings.TrimSpace(cell))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("optim: %s line %d column %d: %q is not a non-negative integer", name, line, c+1, strings.TrimSpace(cell))
			}
			vals[c] = v
		}
		if vals[0] >= dt.Stages {
			return nil, fmt.Errorf("optim: %s line %d column 1: stage %d of %d", name, line, vals[0], dt.Stages)
		}
		k := len(dt.Rows)
		for j, v := range vals[2:] {
			if v > k {
				return nil, fmt.Errorf("optim: %s line %d column %d: delay %d exceeds the %d updates before this one", name, line, j+3, v, k)
			}
		}
		dt.Rows = append(dt.Rows, DelayRow{Stage: vals[0], Microbatch: vals[1], Delays: vals[2:]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("optim: reading %s: %w", name, err)
	}
	if len(dt.Rows) == 0 {
		return nil, fmt.Errorf("optim: %s holds no delay rows", name)
	}
	return dt, nil
}
