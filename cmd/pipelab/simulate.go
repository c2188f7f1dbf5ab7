package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/request"
)

// simulateCommand is "pipelab simulate"; main.go lists it.
var simulateCommand = command{
	name:    "simulate",
	summary: "time a schedule with a cost model: makespan, bubbles, per-rank busy, idle, comm wait and memory",
	run:     runSimulate,
}

func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, out, err := request.DecodeSimulate(args, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Simulate(ctx, req)
	if err != nil {
		return err
	}
	if err := writeTimelineFiles(rep.Timeline, out.Trace, out.Gantt, rep.Cost, out.Unit); err != nil {
		return err
	}
	return request.WriteReport(stdout, out.Format, rep, func() error { return rep.WriteText(stdout) })
}

// writeTimelineFiles writes the Chrome trace and the Gantt chart the flags
// ask for; costName and unit title the chart.
func writeTimelineFiles(tl *sim.Timeline, trace, gantt, costName, unit string) error {
	if trace != "" {
		if err := request.WriteOutputFile("trace", trace, func(w io.Writer) error { return sim.WriteChromeTrace(w, tl) }); err != nil {
			return err
		}
	}
	if gantt != "" {
		if err := writeGantt(gantt, tl, costName, unit); err != nil {
			return fmt.Errorf("--gantt: %w", err)
		}
	}
	return nil
}
