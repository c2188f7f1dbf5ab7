package request

import (
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"os"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/internal/inputfile"
	"github.com/pipelab/pipelab/pipeline"
)

// ReadScheduleFile reads the PyTorch schedule CSV that --schedule names.
// A file that cannot be opened, parsed or validated is bad input (exit 2),
// named by the flag, an invalid action by its line and cell.
func ReadScheduleFile(path string) (*pipeline.Table, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fault.Bad(fmt.Errorf("--schedule: %w", err))
	}
	defer file.Close()
	t, err := ReadScheduleInput(file, path)
	if err == nil {
		err = t.ValidateFile(path)
	}
	if err != nil {
		return nil, fault.Bad(err)
	}
	return t, nil
}

// scheduleReadBytes is the most memory one byte of a schedule file can
// take once read (pipeline.CSVReadBytes).
const scheduleReadBytes = pipeline.CSVReadBytes

// ReadScheduleInput reads a schedule CSV from r, refusing it before it is
// read when its size (a regular file's) times scheduleReadBytes is over
// the memory limit, and after the bytes the limit allows otherwise (a pipe,
// /dev/zero); pipeline.ReadCSV bounds it further (MaxCSVBytes, cells,
// lines).
func ReadScheduleInput(r io.Reader, name string) (*pipeline.Table, error) {
	limit, _, err := budget.Limit()
	if err != nil {
		return nil, err
	}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if err := budget.Check(fmt.Sprintf("the schedule file %s (%s)", name, inputfile.Bytes(fi.Size())), float64(fi.Size())*scheduleReadBytes); err != nil {
				return nil, err
			}
		}
	}
	most := min(int64(pipeline.MaxCSVBytes), limit/scheduleReadBytes)
	return pipeline.ReadCSV(&inputfile.Limited{R: r, Name: name, What: "schedule file within the memory limit (--max-memory)", Cap: most}, name)
}
