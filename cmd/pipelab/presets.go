package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/request"
)

// presetsCommand is "pipelab presets"; main.go lists it.
var presetsCommand = command{
	name:    "presets",
	summary: "list the GPU, link and model presets of the GPU timing model, with their numbers",
	run:     runPresets,
}

func runPresets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	format, err := request.DecodePresets(args, stderr)
	if err != nil {
		return err
	}
	if format == request.FormatYAML {
		return cost.WriteHardwarePresets(stdout)
	}
	list := request.Presets()
	return request.WriteReport(stdout, format, list, func() error { return list.WriteText(stdout) })
}
