package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/request"
)

// scheduleCommand is "pipelab schedule"; main.go lists it.
var scheduleCommand = command{
	name:    "schedule",
	summary: "generate a schedule table and print its grid or its PyTorch CSV",
	run:     runSchedule,
}

func runSchedule(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, err := request.DecodeSchedule(args, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Schedule(ctx, req)
	if err != nil {
		return err
	}
	if err := rep.Write(stdout); err != nil {
		return err
	}
	if rep.TorchRefusal != nil {
		fmt.Fprintf(stderr, "pipelab schedule: warning: PyTorch's schedule validation (_validate_schedule) refuses this file, which runs every microbatch on every stage: %s\n", rep.TorchRefusal)
	}
	return nil
}
