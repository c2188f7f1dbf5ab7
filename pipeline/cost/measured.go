package cost

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/internal/inputfile"
	"github.com/pipelab/pipelab/pipeline"
)

// Measured is what a user measured for each stage of a pipeline: its T_F,
// T_B (input gradient) and T_W, and the time of one transfer between it and
// the next stage, in seconds. ReadCostsCSV and ReadProfile make one;
// ForTable prices a table with it.
type Measured struct {
	// Source names the file(s) read.
	Source string
	Stages []Stage
	// Comm[s] is the transfer between stages s and s+1, either way; it has
	// one entry fewer than Stages.
	Comm []float64
}

// CostsColumns is the header of a costs file: the stage, then T_F, T_B,
// T_W and the transfer to the next stage, in milliseconds.
var CostsColumns = []string{"stage", "fwd_ms", "bwd_ms", "wgrad_ms", "comm_ms"}

// ForTable returns explicit costs for t from the measurements: stage s of t
// takes the times measured for stage s, and a message between stages s and
// s+1 takes Comm[s]. The measurements must have one row per stage of t.
func (m Measured) ForTable(t *pipeline.Table) (Explicit, error) {
	if len(m.Stages) != t.Stages() {
		return Explicit{}, fmt.Errorf("%s: %d stages measured, the table has %d", m.Source, len(m.Stages), t.Stages())
	}
	return Explicit{Stages: m.Stages, Comms: m.Comm}, nil
}

// Mean returns the mean of the stages' times and of the transfers: one
// stage's share for the closed forms.
func (m Measured) Mean() (Stage, float64) {
	var s Stage
	for _, st := range m.Stages {
		s.TF += st.TF / float64(len(m.Stages))
		s.TB += st.TB / float64(len(m.Stages))
		s.TW += st.TW / float64(len(m.Stages))
	}
	comm := 0.0
	for _, c := range m.Comm {
		comm += c / float64(len(m.Comm))
	}
	return s, comm
}

// ReadCostsCSV reads a costs file: a header row naming CostsColumns, then
// one row per stage, in stage order from 0, of times in milliseconds,
// each 0 or from 1 ns to one day (CheckTime), written as decimals; the
// last stage, which sends nothing on, leaves comm_ms empty. Errors name
// the file, the line and the column. A file over inputfile.CostsCSV bytes
// is refused before it is read.
func ReadCostsCSV(path string) (Measured, error) {
	b, err := inputfile.ReadFile(path, "costs file", inputfile.CostsCSV)
	if err != nil {
		return Measured{}, err
	}
	return ParseCostsCSV(b, path)
}

// ParseCostsCSV is ReadCostsCSV of a file's bytes; name is the file named
// in errors.
func ParseCostsCSV(data []byte, name string) (Measured, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = len(CostsColumns)
	r.TrimLeadingSpace = true
	r.Comment = '#'
	header, err := r.Read()
	if err != nil {
		return Measured{}, costsError(name, err)
	}
	for i, col := range CostsColumns {
		if strings.TrimSpace(header[i]) != col {
			line, _ := r.FieldPos(i)
			return Measured{}, fmt.Errorf("%s:%d: column %d: header %s, want %s", name, line, i+1, inputfile.Quote(header[i]), strings.Join(CostsColumns, ","))
		}
	}
	m := Measured{Source: name}
	var lastComm string
	var lastLine int
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Measured{}, costsError(name, err)
		}
		line, _ := r.FieldPos(0)
		s := len(m.Stages)
		if got := strings.TrimSpace(rec[0]); got != strconv.Itoa(s) {
			return Measured{}, fmt.Errorf("%s:%d: stage: %s, want %d (one row per stage, in order from 0)", name, line, inputfile.Quote(got), s)
		}
		if s >= MaxStages {
			return Measured{}, fmt.Errorf("%s:%d: more than %d stages", name, line, MaxStages)
		}
		var t [3]float64
		for i := range t {
			if t[i], err = milliseconds(rec[1+i]); err != nil {
				return Measured{}, fmt.Errorf("%s:%d: %s: %w", name, line, CostsColumns[1+i], err)
			}
		}
		if t[0] == 0 && t[1] == 0 && t[2] == 0 {
			return Measured{}, fmt.Errorf("%s:%d: stage %d: fwd_ms, bwd_ms and wgrad_ms are all 0", name, line, s)
		}
		m.Stages = append(m.Stages, Stage{TF: t[0], TB: t[1], TW: t[2]})
		if s > 0 {
			c, err := milliseconds(lastComm)
			if err != nil {
				return Measured{}, fmt.Errorf("%s:%d: comm_ms: %w (stage %d sends to stage %d)", name, lastLine, err, s-1, s)
			}
			m.Comm = append(m.Comm, c)
		}
		lastComm, lastLine = strings.TrimSpace(rec[4]), line
	}
	if len(m.Stages) == 0 {
		return Measured{}, fmt.Errorf("%s: no stages after the header", name)
	}
	if lastComm != "" {
		if c, err := milliseconds(lastComm); err != nil || c != 0 {
			return Measured{}, fmt.Errorf("%s:%d: comm_ms: the last stage sends to no stage: leave it empty", name, lastLine)
		}
	}
	return m, nil
}

// MaxStages bounds the stages a costs file or a profile may measure, as
// pipeline's schedule files bound their stage indices' use: far above any
// pipeline (hundreds of stages), far below what would strain memory.
const MaxStages = 1 << 16

// milliseconds reads a time in ms, a decimal number in CheckTime's range,
// and returns seconds.
func milliseconds(cell string) (float64, error) {
	cell = strings.TrimSpace(cell)
	x, err := inputfile.ParseDecimal(cell)
	if err != nil {
		return 0, fmt.Errorf("want a non-negative decimal number of milliseconds, got %s", inputfile.Quote(cell))
	}
	if err := CheckTime(x / 1e3); err != nil {
		return 0, err
	}
	return x / 1e3, nil
}

// costsError names the file in a csv error, which carries the line.
func costsError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return fmt.Errorf("%s:%d: wrong number of columns, want %d (%s)", name, pe.Line, len(CostsColumns), strings.Join(CostsColumns, ","))
		}
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: empty costs file (want the header %s)", name, strings.Join(CostsColumns, ","))
	}
	return fmt.Errorf("%s: %w", name, err)
}
