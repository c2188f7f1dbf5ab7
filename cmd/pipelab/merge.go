package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/experiments/sweep"
	"github.com/pipelab/pipelab/request"
)

// mergeCommand is "pipelab merge"; main.go lists it.
var mergeCommand = command{
	name:    "merge",
	summary: "join sweep directories (shards) into one data set",
	run:     runMerge,
}

const mergeDescription = `
Joins the output directories of the shards of one sweep into one data set:
every run recorded in any DIR/runs is recorded once in the output, and its
tables are gathered from them, step sizes selected over the union.

Each sweep directory's dataset.json names its spec and shard, and merge
checks the inputs with it: inputs of different specs, and a run id found in
two directories with different content (the wall-clock column aside), are
refused. Missing shards, unfinished shards, a shard or run given twice and an
input without dataset.json are refused too, or only reported with
--allow-partial. An output directory that holds another data set is refused
unless --force, which replaces it. The output directory is locked while merge
writes it.`

func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("merge", "DIR ... --out DIR [--force] [--allow-partial]", mergeDescription, stderr)
	out := fs.String("out", "", "output directory (required)")
	force := fs.Bool("force", false, "replace an output directory that holds another data set")
	partial := fs.Bool("allow-partial", false, "report missing or duplicated shards and runs as warnings, and merge what there is")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return request.FlagProblem(fs, stderr, "merge", errors.New("no input directories"))
	}
	if *out == "" {
		return request.FlagProblem(fs, stderr, "merge", errors.New("--out is required"))
	}
	sum, err := sweep.Merge(dirs, *out, sweep.MergeOptions{Force: *force, AllowPartial: *partial})
	for _, w := range sum.Warnings {
		fmt.Fprintf(stderr, "pipelab merge: warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d directories: %d of %d runs of spec %q; tables in %s\n", len(dirs), sum.Runs, sum.Dataset.Runs, sum.Dataset.Spec, *out)
	return nil
}
