package main

import (
	"context"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/experiments/sweep"
	"github.com/pipelab/pipelab/request"
)

// reproduceCommand is "pipelab reproduce"; main.go lists it.
var reproduceCommand = command{
	name:    "reproduce",
	summary: "reproduce the papers' figures: Parquet tables and PNG/SVG plots per figure",
	run:     runReproduce,
}

func reproduceDescription() string {
	var b strings.Builder
	b.WriteString(`
Runs the preset sweeps of the named figures (all when none is named) and
draws their plots: DIR/FIGURE/ receives the Parquet tables, the per-run
records (so an interrupted reproduce resumes) and FIGURE plots as PNG and
SVG. --quick runs each figure at a reduced size (all of them in minutes on
two cores); docs/figures.md sets the results beside the papers' claims.
--print-spec prints the figures' preset files instead, as shipped in
experiments/figures/ (experiments/figures/quick/ with --quick): commented
YAML streams of specs that "pipelab sweep" runs into the same tables
(without the figures' plots), presets to copy and change.
The figures' runs share --jobs slots, the longest runs first (by an
estimate of each run's CPU time), so the cores stay busy to the end; the
tables do not depend on --jobs. Each
figure's line gives the seconds from the start until it was done.

figures:`)
	for _, f := range experiments.Figures() {
		// As the flags below: the name, then what it shows, indented.
		fmt.Fprintf(&b, "\n  %s", f.Name)
		for _, line := range wrapWords(f.Summary, 72) {
			fmt.Fprintf(&b, "\n      %s", line)
		}
	}
	return b.String()
}

// wrapWords breaks text into lines of at most width bytes at spaces (a
// longer word keeps a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func runReproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("reproduce", "[FIGURE ...] [--quick] [--out DIR] [--jobs N]", reproduceDescription(), stderr)
	quick := fs.Bool("quick", false, "reduced sizes (minutes for all figures)")
	out := fs.String("out", "out", "output directory")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs in parallel")
	printSpec := fs.Bool("print-spec", false, "print the figures' preset files, the YAML streams \"pipelab sweep\" takes, and run nothing")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *jobs < 1 {
		return request.FlagProblem(fs, stderr, "reproduce", fmt.Errorf("--jobs must be at least 1, got %d", *jobs))
	}
	var figs []experiments.Figure
	if len(names) == 0 {
		figs = experiments.Figures()
	}
	for _, n := range names {
		f, err := experiments.LookupFigure(n)
		if err != nil {
			return fault.Bad(err)
		}
		figs = append(figs, f)
	}
	if *printSpec {
		return printPresets(stdout, figs, *quick)
	}
	lowerGCHeadroom()
	resumeHint.Store(fmt.Sprintf("run the same command again to resume: the runs recorded in %s/FIGURE/runs are kept", *out))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return reproduceFigures(ctx, figs, *quick, *out, *jobs, stdout, stderr)
}

// printPresets writes the figures' preset files as shipped, comments
// included, one after another: each starts with a header comment and a
// "---" line, so that several make one YAML stream. Saved to a file and
// swept, a figure's file gives the runs and tables of its reproduce.
func printPresets(w io.Writer, figs []experiments.Figure, quick bool) error {
	for _, f := range figs {
		b, err := f.PresetFile(quick)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// reproduceFigures reproduces the figures with sweep.Reproduce, printing
// each figure's line in the order the figures were named, once it and
// those before it are done, with the seconds from the start until it was
// done; progress lines, which name their figure, go to stderr.
func reproduceFigures(ctx context.Context, figs []experiments.Figure, quick bool, out string, jobs int,
	stdout, stderr io.Writer) error {
	start := time.Now()
	_, err := sweep.Reproduce(ctx, figs, sweep.ReproduceOptions{Quick: quick, Out: out, Jobs: jobs, Progress: stderr,
		Done: func(r sweep.FigureReport) {
			fmt.Fprintf(stdout, "%-15s %s (%d resumed) %s  %6.1f s  %s\n",
				r.Figure, request.Count(r.Summary.Runs, "run"), r.Summary.Resumed, request.Count(len(r.Plots), "plot"), r.Seconds, r.Dir)
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "total %.1f s\n", time.Since(start).Seconds())
	return nil
}
