package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/experiments/sweep"
	"github.com/pipelab/pipelab/request"
)

// sweepCommand is "pipelab sweep"; main.go lists it.
var sweepCommand = command{
	name:    "sweep",
	summary: "run a YAML sweep spec in parallel, sharded and resumable, into Parquet tables",
	run:     runSweep,
}

const sweepDescription = `
Runs the sweep a YAML spec describes (examples/*.yaml, docs/sweeps.md), or
the sweeps of a stream of specs separated by "---" lines (a figure's preset,
"pipelab reproduce FIGURE --print-spec"), into one set of tables: each
spec is checked before anything runs (an unknown key, a bad range or an
unknown objective or method is an error naming the key and its line), then
expanded into runs with stable ids and seeds derived from the spec's seed and
each run's parameters. The spec's experiment key names the results (the
tables' experiment column), its measure key says what the runs measure
(convergence, the default, delays, schedules or delay-profiles), and
cost.cost_model prices them (unit or gpu, with the model preset cost.model).

Runs go in parallel (--jobs). Each finished run is recorded in DIR/runs/ID.gob
(written atomically), so a sweep that is stopped or killed resumes where it
was when started again, and no run is done or recorded twice. A record
stamped by another build of pipelab, or one that cannot be read, is not
trusted: that run runs again, and one line says how many. At the end the
records are gathered into DIR/runs.parquet, DIR/curves.parquet and, for the
delays and schedules measures, DIR/delays.parquet, DIR/schedules.parquet and
DIR/timeline.parquet, sorted, so the files do not depend on --jobs, and
replaced together.

DIR/pipelab.lock holds the folder while the sweep runs: a second sweep or
merge into DIR is refused (a lock left by a dead process of this host is taken
over). DIR/dataset.json records the spec and shard DIR holds; a sweep of
another spec or shard into DIR is refused. Ctrl-C and SIGTERM stop the sweep at
once (exit status 130 and 143), keeping the runs recorded so far.

--shard I/N runs the runs whose index mod N is I. Without it the shard comes
from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm array job), or
from JOB_COMPLETION_INDEX (a Kubernetes indexed Job) with the shard count from
--shards or PIPELAB_SHARDS. Give each shard its own --out and join them with
"pipelab merge"; "pipelab plot DIR" draws the figures.

--print-spec prints the specs as they would run, every default written out
(docs/sweeps.md lists them), and runs nothing.`

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("sweep", "SPEC.yaml --out DIR [--jobs N] [--shard I/N] | SPEC.yaml --print-spec", sweepDescription, stderr)
	out := fs.String("out", "", "output directory (required)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs in parallel")
	shardFlag := fs.String("shard", "", "run shard I of N (I/N); default from the environment of a Slurm, Kubernetes, AWS Batch, Google Cloud Batch or Cloud Run array task")
	shards := fs.Int("shards", 0, "shard count for a Kubernetes indexed Job (else PIPELAB_SHARDS)")
	printSpec := fs.Bool("print-spec", false, "print the specs with every default written out, and run nothing")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return request.FlagProblem(fs, stderr, "sweep", fmt.Errorf("want one spec file, got %d arguments", len(pos)))
	}
	if *out == "" && !*printSpec {
		return request.FlagProblem(fs, stderr, "sweep", errors.New("--out is required"))
	}
	if *jobs < 1 {
		return request.FlagProblem(fs, stderr, "sweep", fmt.Errorf("--jobs must be at least 1, got %d", *jobs))
	}
	specs, err := experiments.ReadSpecsFile(pos[0])
	if err != nil {
		return err
	}
	if *printSpec {
		// Read and checked, the specs have their defaults written out.
		fmt.Fprintf(stdout, "# %s as pipelab sweep runs it, every default written out\n---\n", pos[0])
		return experiments.EncodeSpecs(stdout, specs)
	}
	name, err := experiments.StreamName(pos[0], specs)
	if err != nil {
		return err
	}
	all, err := experiments.ExpandAll(specs)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	var shard sweep.Shard
	if *shardFlag != "" {
		shard, err = sweep.ParseShard(*shardFlag)
	} else {
		shard, err = sweep.ShardFromEnv(os.LookupEnv, *shards)
	}
	if err != nil {
		return err
	}
	runs := shard.Select(all)
	ds := sweep.NewDataset(name, all, shard)
	rn := sweep.Runner{Dir: *out, Jobs: *jobs, Progress: stderr, Terminal: isTerminal(stderr), Dataset: &ds}
	resumeHint.Store(fmt.Sprintf("run the same command again to resume: the runs recorded in %s/runs are kept", *out))
	lowerGCHeadroom()
	sum, err := rn.Sweep(ctx, runs)
	if err != nil && sum.Resumed+sum.Ran > 0 {
		return fmt.Errorf("%w (%d runs recorded in %s/runs; run the same command again to resume)", err, sum.Resumed+sum.Ran, *out)
	}
	if err != nil {
		return err
	}
	count := fmt.Sprintf("%d of %d runs", sum.Runs, len(all))
	if extra := sum.Runs - len(runs); extra > 0 {
		// Runs counts the runs a bracketing grid added (extend_grid) too.
		count = fmt.Sprintf("%d runs, %d of the spec's and %d beyond its step grids (extend_grid)", sum.Runs, len(runs), extra)
	}
	fmt.Fprintf(stdout, "sweep %s: shard %s: %s (%d resumed, %d ran); tables in %s\n",
		name, shard, count, sum.Resumed, sum.Ran, *out)
	return nil
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments ("sweep SPEC --out DIR"), which the flag
// package alone stops at, and returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := request.ParseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// isTerminal reports whether w is a character device (a terminal), where
// progress redraws one line instead of printing one per tenth.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
