package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// kindsCommand is "pipelab kinds"; main.go lists it.
var kindsCommand = command{
	name:    "kinds",
	summary: "list the schedule families pipelab can generate",
	run:     runKinds,
}

const kindsDescription = `
Lists the schedule families, one per line: the name "pipelab schedule --kind"
takes, and a one-line summary with the family's source.`

func runKinds(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("kinds", "", kindsDescription, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArguments(fs.Args()); err != nil {
		return flagProblem(fs, stderr, "kinds", err)
	}
	families := append(pipeline.Families(), pipeline.Family{Name: tune.ZBAutoFamily, Summary: zbAutoSummary})
	width := 0
	for _, f := range families {
		width = max(width, len(f.Name))
	}
	for _, f := range families {
		if _, err := fmt.Fprintf(stdout, "%-*s  %s\n", width, f.Name, f.Summary); err != nil {
			return err
		}
	}
	return nil
}
