package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pipelab/pipelab/internal/inputfile"
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

// The caps of a schedule file, so that a wrong file (/dev/zero, a log) is
// refused early, in bounded memory: a cell is an action, at most
// "(1073741823F1073741823;1073741823B1073741823)OVERLAP_F_B" (57 bytes),
// with room for spaces; a line is a rank; and the whole file is far above
// the largest table a command can time (16 ranks × 20000 microbatches of
// ZB-V is 1.9 million cells, about 12 MB).
const (
	MaxCSVBytes  = 256 << 20
	MaxCSVRanks  = 1 << 16
	maxCellBytes = 64
)

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
// The file is read cell by cell: a cell over 64 bytes, more than
// MaxCSVRanks lines or more than MaxCSVBytes bytes are refused as soon as
// they are seen, and cells are quoted short and escaped in errors.
//
// ReadCSV checks the cells and the placement only; ValidateCSV checks the
// order of the actions as PyTorch's loader does.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	br := bufio.NewReaderSize(&inputfile.Limited{R: r, Name: name, What: "schedule file", Cap: MaxCSVBytes}, 64<<10)
	if b, err := br.Peek(len(byteOrderMark)); err == nil && string(b) == byteOrderMark {
		br.Discard(len(byteOrderMark))
	}
	cr := cellReader{name: name, line: 1, cell: 1}
	t := &Table{}
	for {
		row, more, err := cr.row(br)
		if err != nil {
			return nil, err
		}
		if row == nil { // nothing after the last newline
			break
		}
		if len(t.Rows) == MaxCSVRanks {
			return nil, malformedAt(name, cellPos{cr.line, 1}, "more than %d lines: a line is a rank", MaxCSVRanks)
		}
		t.Rows = append(t.Rows, row)
		if !more {
			break
		}
		cr.line++
	}
	if len(t.Rows) == 0 {
		return nil, malformedAt(name, cellPos{1, 1}, "empty file: no ranks")
	}
	if err := inferShape(t, name); err != nil {
		return nil, err
	}
	return t, nil
}

// cellReader reads a schedule file's lines cell by cell.
type cellReader struct {
	name       string
	line, cell int
	buf        []byte
}

// row reads one line into its actions: nil when the input ended before
// the line's first byte, more false when it ended within the line.
func (c *cellReader) row(br *bufio.Reader) (row []Action, more bool, err error) {
	c.cell = 1
	c.buf = c.buf[:0]
	row = []Action{}
	started := false
	for {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			if !started {
				return nil, false, nil
			}
			return c.finish(row, false)
		}
		if err != nil {
			if errors.Is(err, inputfile.ErrTooLarge) {
				return nil, false, malformedAt(c.name, cellPos{c.line, c.cell}, "%v", err)
			}
			return nil, false, fmt.Errorf("%s: %w", c.name, err)
		}
		started = true
		switch b {
		case '\n':
			return c.finish(row, true)
		case ',':
			a, err := c.action()
			if err != nil {
				return nil, false, err
			}
			row = append(row, a)
			c.cell++
			c.buf = c.buf[:0]
		default:
			if len(c.buf) == maxCellBytes {
				return nil, false, malformedAt(c.name, c.pos(), "a cell of more than %d bytes, starting %s...: no action is that long",
					maxCellBytes, inputfile.Quote(string(c.buf[:inputfile.QuoteBytes])))
			}
			c.buf = append(c.buf, b)
		}
	}
}

// finish ends a line: a "\r" before its "\n" is dropped, and a line with
// nothing in it is a rank with no actions.
func (c *cellReader) finish(row []Action, more bool) ([]Action, bool, error) {
	if n := len(c.buf); n > 0 && c.buf[n-1] == '\r' {
		c.buf = c.buf[:n-1]
	}
	if c.cell == 1 && len(c.buf) == 0 {
		return []Action{}, more, nil
	}
	a, err := c.action()
	if err != nil {
		return nil, false, err
	}
	return append(row, a), more, nil
}

func (c *cellReader) pos() cellPos { return cellPos{c.line, c.cell} }

// action parses the cell read so far.
func (c *cellReader) action() (Action, error) {
	cell := string(c.buf)
	switch {
	case cell == `""`:
		// Python's csv writer quotes a row's only cell when it is empty.
		return Action{}, nil
	case strings.Contains(cell, `"`):
		return Action{}, malformedAt(c.name, c.pos(), "quoted cell %s: no action needs quoting", inputfile.Quote(cell))
	case strings.Contains(cell, "\r"):
		return Action{}, malformedAt(c.name, c.pos(), "carriage return inside a line: lines end in \\n or \\r\\n")
	}
	a, reason := parseAction(cell)
	if reason != "" {
		return Action{}, malformedAt(c.name, c.pos(), "%s", reason)
	}
	return a, nil
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
