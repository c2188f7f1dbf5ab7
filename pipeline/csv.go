package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every error that rejects a schedule file or an
// action string.
var ErrMalformed = errors.New("malformed schedule")

// ParseError says where a schedule file is malformed and why. Line and Cell
// count from 1, as editors do.
type ParseError struct {
	File   string
	Line   int
	Cell   int
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: cell %d: %s", e.File, e.Line, e.Cell, e.Reason)
}

// Unwrap makes errors.Is(err, ErrMalformed) true for every ParseError.
func (e *ParseError) Unwrap() error { return ErrMalformed }

// cellPos is where a cell sits in a file, for error messages.
type cellPos struct{ line, cell int }

// malformedAt is the *ParseError for the cell at p of the file name.
func malformedAt(name string, p cellPos, format string, args ...any) error {
	return &ParseError{File: name, Line: p.line, Cell: p.cell, Reason: fmt.Sprintf(format, args...)}
}

// byteOrderMark is what spreadsheet programs put before the first cell of a
// file they save as UTF-8 CSV.
const byteOrderMark = "\ufeff"

// ReadCSV reads a schedule in PyTorch's CSV format (docs/reference.md §3): no
// header, line i holds rank i's actions in order, an empty cell is a bubble,
// lines end in "\n" or "\r\n" and may differ in length. As with Python's csv
// reader, an empty line is a rank with no actions.
//
// A UTF-8 byte order mark before the first cell is skipped.
//
// The placement is inferred from the cells (every stage must appear on
// exactly one rank, and stages are numbered 0..S-1), and so is the
// microbatch count (microbatches are numbered 0..M-1). So are the routes:
// when the ranges of stages the microbatches' actions name are disjoint
// and together cover every stage (Chimera's two pipelines), each distinct
// range becomes a Route and MicrobatchRoute says which one each microbatch
// takes; otherwise Routes stays nil and every microbatch is taken to run on
// every stage. name is used in error messages only. Every rejection is a
// *ParseError naming name, a line and a cell, and wraps ErrMalformed.
//
// ReadCSV checks the cells and the placement only; ValidateCSV checks the
// order of the actions as PyTorch's loader does.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pipeline: read %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte(byteOrderMark))
	if len(data) == 0 {
		return nil, malformedAt(name, cellPos{1, 1}, "empty file: no ranks")
	}
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	t := &Table{Rows: make([][]Action, len(lines))}
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			t.Rows[i] = []Action{}
			continue
		}
		cells := strings.Split(line, ",")
		row := make([]Action, len(cells))
		for j, cell := range cells {
			p := cellPos{i + 1, j + 1}
			switch {
			case cell == `""`:
				// Python's csv writer quotes a row's only cell when it is empty.
				continue
			case strings.Contains(cell, `"`):
				return nil, malformedAt(name, p, "quoted cell %s: no action needs quoting", strconv.Quote(cell))
			case strings.Contains(cell, "\r"):
				return nil, malformedAt(name, p, "carriage return inside a line: lines end in \\n or \\r\\n")
			}
			a, reason := parseAction(cell)
			if reason != "" {
				return nil, malformedAt(name, p, "%s", reason)
			}
			row[j] = a
		}
		t.Rows[i] = row
	}
	if err := inferShape(t, name); err != nil {
		return nil, err
	}
	return t, nil
}

// WriteCSV writes t in PyTorch's CSV format, byte for byte as Python's csv
// module writes it with its defaults: ',' between cells, "\r\n" after every
// row, a bubble as an empty cell, and a row whose only cell is a bubble as
// `""` (Python quotes a lone empty field so that the row is not blank).
func WriteCSV(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	var line bytes.Buffer
	for _, row := range t.Rows {
		line.Reset()
		if len(row) == 1 && row[0].IsBubble() {
			line.WriteString(`""`)
		}
		for i, a := range row {
			if i > 0 {
				line.WriteByte(',')
			}
			line.WriteString(a.String())
		}
		line.WriteString("\r\n")
		if _, err := bw.Write(line.Bytes()); err != nil {
			return fmt.Errorf("pipeline: write schedule CSV: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pipeline: write schedule CSV: %w", err)
	}
	return nil
}
