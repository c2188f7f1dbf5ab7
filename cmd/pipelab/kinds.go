package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/request"
)

// kindsCommand is "pipelab kinds"; main.go lists it.
var kindsCommand = command{
	name:    "kinds",
	summary: "list the schedule families pipelab can generate",
	run:     runKinds,
}

func runKinds(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if err := request.DecodeKinds(args, stderr); err != nil {
		return err
	}
	return request.Kinds().WriteText(stdout)
}
