package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/request"
)

// compareCommand is "pipelab compare"; main.go lists it.
var compareCommand = command{
	name:    "compare",
	summary: "compare schedule families at three levels: formula, lockstep table, simulation",
	run:     runCompare,
}

// runCompare prints the report, whole even when a family could not be
// priced, and then returns that error.
func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, format, err := request.DecodeCompare(args, stderr)
	if err != nil {
		return err
	}
	rep, failed := request.Compare(ctx, req)
	if failed != nil && rep.Families == nil {
		return failed
	}
	if err := request.WriteReport(stdout, format, rep, func() error { return rep.WriteText(stdout) }); err != nil {
		return err
	}
	return failed
}
