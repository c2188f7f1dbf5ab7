package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"pipelab/experiments"
)

func init() {
	register(command{
		name:    "reproduce",
		summary: "reproduce the papers' figures: Parquet tables and PNG/SVG plots per figure",
		run:     runReproduce,
	})
}

func reproduceDescription() string {
	var b strings.Builder
	b.WriteString(`
Runs the preset sweeps of the named figures (all when none is named) and
draws their plots: DIR/FIGURE/ receives the Parquet tables, the per-run
records (so an interrupted reproduce resumes) and FIGURE plots as PNG and
SVG. --quick runs each figure at a reduced size (all of them in minutes on
two cores); docs/figures.md sets the results beside the papers' claims.

figures:`)
	for _, f := range experiments.Figures() {
		fmt.Fprintf(&b, "\n  %-15s %s", f.Name, f.Summary)
	}
	return b.String()
}

func runReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reproduce", "[FIGURE ...] [--quick] [--out DIR] [--jobs N]", reproduceDescription(), stderr)
	quick := fs.Bool("quick", false, "reduced sizes (minutes for all figures)")
	out := fs.String("out", "out", "output directory")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs in parallel")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *jobs < 1 {
		return flagProblem(fs, stderr, "reproduce", fmt.Errorf("--jobs must be at least 1, got %d", *jobs))
	}
	var figs []experiments.Figure
	if len(names) == 0 {
		figs = experiments.Figures()
	}
	for _, n := range names {
		f, err := experiments.LookupFigure(n)
		if err != nil {
			return err
		}
		figs = append(figs, f)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	total := time.Now()
	for _, f := range figs {
		start := time.Now()
		runs, err := f.Runs(*quick)
		if err != nil {
			return err
		}
		dir := filepath.Join(*out, f.Name)
		fmt.Fprintf(stderr, "%s: %d runs\n", f.Name, len(runs))
		rn := experiments.Runner{Dir: dir, Jobs: *jobs, Progress: stderr, Terminal: isTerminal(stderr)}
		sum, err := rn.Sweep(ctx, runs)
		if err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		files, err := experiments.PlotDir(dir)
		if err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		fmt.Fprintf(stdout, "%-15s %s (%d resumed) %s  %6.1f s  %s\n",
			f.Name, count(sum.Runs, "run"), sum.Resumed, count(len(files), "plot"), time.Since(start).Seconds(), dir)
	}
	fmt.Fprintf(stdout, "total %.1f s\n", time.Since(total).Seconds())
	return nil
}
