package main

import (
	"context"
	"io"
	"os"

	"github.com/pipelab/pipelab/request"
)

// checkCommand is "pipelab check"; main.go lists it.
var checkCommand = command{
	name:    "check",
	summary: "read a PyTorch schedule CSV, lower it and count PyTorch's lockstep steps",
	run:     runCheck,
}

// checkStdin is what "pipelab check -" reads; tests replace it.
var checkStdin io.Reader = os.Stdin

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, format, err := request.DecodeCheck(args, checkStdin, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Check(ctx, req)
	if err != nil {
		return err
	}
	return request.WriteReport(stdout, format, rep, func() error { return rep.WriteText(stdout) })
}
