package main

import (
	"errors"
	"fmt"
	"io"

	"pipelab/experiments"
)

func init() {
	register(command{
		name:    "merge",
		summary: "join sweep directories (shards) into one data set",
		run:     runMerge,
	})
}

const mergeDescription = `
Joins the output directories of sweep shards (or of sweeps that overlap) into
one: every run recorded in any DIR/runs is recorded once in the output, and
its tables are gathered from them, step sizes selected over the union. A run
id found in two directories with different content (the wall-clock column
aside) is refused, naming the run id and both directories.`

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "DIR ... --out DIR", mergeDescription, stderr)
	out := fs.String("out", "", "output directory (required)")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return flagProblem(fs, stderr, "merge", errors.New("no input directories"))
	}
	if *out == "" {
		return flagProblem(fs, stderr, "merge", errors.New("--out is required"))
	}
	n, err := experiments.Merge(dirs, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d directories: %d runs; tables in %s\n", len(dirs), n, *out)
	return nil
}
