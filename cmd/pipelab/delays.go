package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/request"
)

// delaysCommand is "pipelab delays"; main.go lists it.
var delaysCommand = command{
	name:    "delays",
	summary: "measure the weight delays k - j_k^(s) of a schedule replayed as asynchronous PipeDream, overall and per stage",
	run:     runDelays,
}

func runDelays(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, format, err := request.DecodeDelays(args, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Delays(ctx, req)
	if err != nil {
		return err
	}
	return request.WriteReport(stdout, format, rep, func() error { return rep.WriteText(stdout) })
}
