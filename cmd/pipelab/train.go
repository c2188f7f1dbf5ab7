package main

import (
	"context"
	"io"
	"time"

	"github.com/pipelab/pipelab/request"
	"github.com/pipelab/pipelab/request/train"
)

// trainCommand is "pipelab train"; main.go lists it.
var trainCommand = command{
	name:    "train",
	summary: "replay a schedule with real optimizer math on an objective and print the loss curve",
	run:     runTrain,
}

// runTrain runs the library's train (request/train), with progress lines
// on stderr when asked or when stderr is a terminal, and prints the report.
func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, out, err := train.Decode(args, stderr)
	if err != nil {
		return err
	}
	if out.Progress || isTerminal(stderr) {
		req.Run.Progress = trainProgress(stderr, progressInterval, time.Now)
	}
	rep, err := train.Train(ctx, req, nil)
	if err != nil {
		return err
	}
	return request.WriteReport(stdout, out.Format, rep, func() error { return rep.WriteText(stdout) })
}
