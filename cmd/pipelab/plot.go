package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	iofs "io/fs"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/request"
	"github.com/pipelab/pipelab/results"
)

// plotCommand is "pipelab plot"; main.go lists it.
var plotCommand = command{
	name:    "plot",
	summary: "redraw the plots of a results directory from its Parquet tables",
	run:     runPlot,
}

const plotDescription = `
Draws the plots of a results directory (a sweep's or a merge's --out, or one
figure's directory of reproduce) from its Parquet tables alone, as PNG and SVG
beside them: delays against S, loss against simulated time or block updates,
final loss against S, schedule comparisons and Gantt charts, whichever the
tables hold. Given reproduce's --out, it plots every figure's directory.`

func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("plot", "DIR", plotDescription, stderr)
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return request.FlagProblem(fs, stderr, "plot", fmt.Errorf("want one directory, got %d arguments", len(dirs)))
	}
	files, err := experiments.PlotDir(dirs[0])
	if errors.Is(err, results.ErrNoTables) || errors.Is(err, iofs.ErrNotExist) {
		return fault.Bad(err) // a folder that holds no results: bad input
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "%s.png %s.svg\n", f, f)
	}
	return nil
}
