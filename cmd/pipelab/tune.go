package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// tuneCommand is "pipelab tune"; main.go lists it.
var tuneCommand = command{
	name:    "tune",
	summary: "choose partition, placement, schedule and microbatches for a model on a GPU pipeline",
	run:     runTune,
}

// runTune runs the library's tune, writes the files its flags ask for
// (--out, --gantt, --baseline-gantt) and prints the report.
func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, out, err := request.DecodeTune(args, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Tune(ctx, req)
	if err != nil {
		return err
	}
	if res := rep.Result; res != nil {
		if out.Out != "" {
			if err := request.WriteOutputFile("out", out.Out, func(w io.Writer) error { return pipeline.WriteCSV(w, res.Best.Table) }); err != nil {
				return err
			}
		}
		if out.Gantt != "" {
			if err := writeGantt(out.Gantt, res.Best.Timeline, "tuned, "+out.CostName, "s"); err != nil {
				return fmt.Errorf("--gantt: %w", err)
			}
		}
		if out.BaselineGantt != "" {
			if err := writeGantt(out.BaselineGantt, res.Baseline.Timeline, "baseline, "+out.CostName, "s"); err != nil {
				return fmt.Errorf("--baseline-gantt: %w", err)
			}
		}
	}
	return request.WriteReport(stdout, out.Format, rep, func() error { return rep.WriteText(stdout) })
}
