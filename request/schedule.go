package request

import (
	"context"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
)

// ScheduleRequest is one "pipelab schedule": a generated table and the
// form it is printed in.
type ScheduleRequest struct {
	Table *pipeline.Table
	// Comms adds the SEND/RECV actions PyTorch's _add_send_recv would
	// (pipeline.Lower) before printing (--comms).
	Comms bool
	// CSV prints PyTorch's schedule CSV (--format csv) rather than the
	// unit-time grid: a compute_only table as PyTorch's pipeline_order
	// lays it out (pipeline.TorchOrder).
	CSV bool
}

// ScheduleReport is the table as "pipelab schedule" prints it (Write).
type ScheduleReport struct {
	Table *pipeline.Table
	CSV   bool
	// Style is the grid's: the papers' (microbatches from 1, no stage)
	// when every rank holds one stage and no messages were added.
	Style pipeline.RenderStyle
	// TorchRefusal, for a CSV, is why PyTorch's loader
	// (_validate_schedule, pipeline.ValidateTorch) would refuse the file,
	// or nil.
	TorchRefusal error
}

// Schedule lowers and orders the request's table as its form asks. It
// stops with ctx's error if ctx has ended.
func Schedule(ctx context.Context, req ScheduleRequest) (ScheduleReport, error) {
	if req.Table == nil {
		return ScheduleReport{}, badInputf("schedule: no table")
	}
	if err := ctx.Err(); err != nil {
		return ScheduleReport{}, err
	}
	t := req.Table
	rep := ScheduleReport{CSV: req.CSV, Style: pipeline.TorchStyle}
	if onePerRank(t) && !req.Comms {
		rep.Style = pipeline.PaperStyle
	}
	if req.Comms {
		var err error
		if t, err = pipeline.Lower(t); err != nil {
			return ScheduleReport{}, fmt.Errorf("--comms: %w", err)
		}
	} else if req.CSV {
		t = pipeline.TorchOrder(t)
	}
	if req.CSV {
		rep.TorchRefusal = pipeline.ValidateTorch(t, "the CSV")
	}
	rep.Table = t
	return rep, nil
}

// Write prints the report: PyTorch's CSV, or the unit-time grid.
func (r ScheduleReport) Write(w io.Writer) error {
	if r.CSV {
		return pipeline.WriteCSV(w, r.Table)
	}
	return pipeline.Render(w, r.Table, pipeline.RenderOptions{Style: r.Style})
}

// onePerRank reports whether every rank holds exactly one stage, the case
// the papers draw with microbatches only.
func onePerRank(t *pipeline.Table) bool {
	held := make([]int, t.Ranks())
	for _, r := range t.Placement {
		held[r]++
	}
	for _, n := range held {
		if n != 1 {
			return false
		}
	}
	return true
}

// WriteText prints the report (Write).
func (r ScheduleReport) WriteText(w io.Writer) error { return r.Write(w) }
