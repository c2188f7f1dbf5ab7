package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pipelab/pipelab/experiments"
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
The figures' runs share --jobs slots, the longest runs first (by an
estimate of each run's CPU time), so the cores stay busy to the end; the
tables do not depend on --jobs. Each
figure's line gives the seconds from the start until it was done.

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
			return badInput{err}
		}
		figs = append(figs, f)
	}
	lowerGCHeadroom()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return reproduceFigures(ctx, figs, *quick, *out, *jobs, stdout, stderr)
}

// figureDone is what one figure of a reproduce reports when it is done.
type figureDone struct {
	line string
	err  error
}

// reproduceFigures runs the figures' sweeps side by side in one pool of
// jobs slots (experiments.Pool), the longest runs first so that the short
// ones fill the slots at the end, ties to the heavier figure (Figure.Load),
// and each figure's plots in a slot once its runs are done. The tables and plots
// are those of the figures run one after another; each figure's line is
// printed in the order the figures were named, once it and those before it
// are done, with the seconds from the start until it was done, and
// progress lines name their figure.
func reproduceFigures(ctx context.Context, figs []experiments.Figure, quick bool, out string, jobs int,
	stdout, stderr io.Writer) error {
	type planned struct {
		fig  experiments.Figure
		runs []experiments.Run
	}
	plans := make([]planned, len(figs))
	for i, f := range figs {
		runs, err := f.Runs(quick)
		if err != nil {
			return err
		}
		plans[i] = planned{f, runs}
	}
	ranks := make([]int, len(figs)) // heaviest figure first, ties in the order given
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(figs[b].Load(quick), figs[a].Load(quick)) })
	for rank, i := range order {
		ranks[i] = rank
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	pool := experiments.NewPool(jobs)
	progress := &lockedWriter{w: stderr}
	total := time.Now()
	done := make([]chan figureDone, len(figs))
	for i, pl := range plans {
		done[i] = make(chan figureDone, 1)
		fmt.Fprintf(progress, "%s: %d runs\n", pl.fig.Name, len(pl.runs))
		go func() {
			start := time.Now()
			dir := filepath.Join(out, pl.fig.Name)
			// Every run of the figure is queued in the pool at once, so that
			// a freed slot goes to the most urgent run of all; the pool
			// bounds how many compute.
			rn := experiments.Runner{Dir: dir, Pool: pool, Rank: ranks[i], Progress: &prefixWriter{prefix: pl.fig.Name + ": ", w: progress}}
			sum, err := rn.Sweep(ctx, pl.runs)
			if err != nil {
				done[i] <- figureDone{err: fmt.Errorf("figure %s: %w", pl.fig.Name, err)}
				return
			}
			var files []string
			err = pool.Do(ctx, ranks[i], func() (err error) {
				files, err = experiments.PlotDir(dir)
				return err
			})
			if err != nil {
				done[i] <- figureDone{err: fmt.Errorf("figure %s: %w", pl.fig.Name, err)}
				return
			}
			done[i] <- figureDone{line: fmt.Sprintf("%-15s %s (%d resumed) %s  %6.1f s  %s\n",
				pl.fig.Name, count(sum.Runs, "run"), sum.Resumed, count(len(files), "plot"), time.Since(start).Seconds(), dir)}
		}()
	}
	var first error
	for i := range done {
		d := <-done[i]
		if d.err != nil && first == nil {
			first = d.err
			stop()
		}
		if first == nil {
			io.WriteString(stdout, d.line)
		}
	}
	if first != nil {
		return first
	}
	fmt.Fprintf(stdout, "total %.1f s\n", time.Since(total).Seconds())
	return nil
}

// lockedWriter serialises the writes of the figures running side by side.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter starts every line written through it with prefix, so that
// the progress lines of figures run side by side say whose they are. Each
// write is one or more whole lines (the runner writes lines).
type prefixWriter struct {
	prefix string
	w      io.Writer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for line := range bytes.Lines(b) {
		out = append(append(out, p.prefix...), line...)
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
