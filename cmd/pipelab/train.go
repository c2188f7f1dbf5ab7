package main

import (
	"context"
	"io"
	"runtime"
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
// on stderr when asked or when stderr is a terminal, the LM's work spread
// over GOMAXPROCS goroutines, and prints the report.
func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, out, err := train.Decode(args, stderr)
	if err != nil {
		return err
	}
	// The command line has the machine to itself: the LM's losses and
	// products are spread over every core, the same bits as on one
	// (charlm's Config.Workers; a sweep's runs keep one each).
	req.Run.Workers = runtime.GOMAXPROCS(0)
	if out.Progress || isTerminal(stderr) {
		req.Run.Progress = trainProgress(stderr, progressInterval, time.Now)
	}
	rep, err := train.Train(ctx, req, nil)
	if err != nil {
		return err
	}
	return request.WriteReport(stdout, out.Format, rep, func() error { return rep.WriteText(stdout) })
}
