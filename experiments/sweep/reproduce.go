package sweep

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/pipelab/pipelab/experiments"
)

// ReproduceOptions say how Reproduce runs the figures.
type ReproduceOptions struct {
	// Quick runs each figure at its reduced size (experiments.Figure.Presets).
	Quick bool
	// Out receives a folder per figure, Out/NAME: its Parquet tables, its
	// run records (so that an interrupted reproduce resumes) and its plots.
	Out string
	// Jobs is the number of slots the figures' runs share (default
	// runtime.NumCPU()); the tables do not depend on it.
	Jobs int
	// Progress receives progress lines, each starting with its figure's
	// name (nil: silent).
	Progress io.Writer
	// Done, when not nil, is called with each figure's report in the
	// order of the figures given, once the figure and those before it
	// are done; after a failure it is not called again.
	Done func(FigureReport)
}

// FigureReport is what Reproduce did for one figure.
type FigureReport struct {
	// Figure is the figure's name, Dir its folder (Out/NAME).
	Figure, Dir string
	// Summary counts the figure's runs (resumed ones among them).
	Summary Summary
	// Plots are the plot files drawn into Dir.
	Plots []string
	// Seconds is the time from the start of Reproduce until the figure
	// was done.
	Seconds float64
}

// Reproduce runs the figures' sweeps into opt.Out and draws their plots. The
// sweeps run side by side in one pool of opt.Jobs slots, the longest runs
// first (by experiments.EstimatedSeconds) so that the short ones fill the
// slots at the end, ties to the heavier figure (Figure.Load), and each
// figure's plots are drawn in a slot once its runs are done; the figures'
// runners share one timeline cache. The tables and plots are those of the
// figures run one after another. It returns the figures' reports in the
// order given, or the first failure (naming its figure), which stops the
// other figures' runs; what they recorded stays for the next Reproduce to
// resume from.
func Reproduce(ctx context.Context, figs []experiments.Figure, opt ReproduceOptions) ([]FigureReport, error) {
	type planned struct {
		fig  experiments.Figure
		runs []experiments.Run
	}
	plans := make([]planned, len(figs))
	for i, f := range figs {
		runs, err := f.Runs(opt.Quick)
		if err != nil {
			return nil, err
		}
		plans[i] = planned{f, runs}
	}
	ranks := make([]int, len(figs)) // heaviest figure first, ties in the order given
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(figs[b].Load(opt.Quick), figs[a].Load(opt.Quick)) })
	for rank, i := range order {
		ranks[i] = rank
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	jobs := opt.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	pool := NewPool(jobs)
	timelines := new(experiments.Timelines)
	var progress io.Writer
	if opt.Progress != nil {
		progress = &lockedWriter{w: opt.Progress}
	}
	start := time.Now()
	type figureDone struct {
		report FigureReport
		err    error
	}
	done := make([]chan figureDone, len(figs))
	for i, pl := range plans {
		done[i] = make(chan figureDone, 1)
		if progress != nil {
			fmt.Fprintf(progress, "%s: %d runs\n", pl.fig.Name, len(pl.runs))
		}
		go func() {
			dir := filepath.Join(opt.Out, pl.fig.Name)
			// Every run of the figure is queued in the pool at once, so that
			// a freed slot goes to the most urgent run of all; the pool
			// bounds how many compute.
			rn := Runner{Dir: dir, Pool: pool, Rank: ranks[i], Timelines: timelines}
			if progress != nil {
				rn.Progress = &prefixWriter{prefix: pl.fig.Name + ": ", w: progress}
			}
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
			done[i] <- figureDone{report: FigureReport{Figure: pl.fig.Name, Dir: dir, Summary: sum, Plots: files,
				Seconds: time.Since(start).Seconds()}}
		}()
	}
	var first error
	reports := make([]FigureReport, 0, len(figs))
	for i := range done {
		d := <-done[i]
		if d.err != nil && first == nil {
			first = d.err
			stop()
		}
		if first == nil {
			reports = append(reports, d.report)
			if opt.Done != nil {
				opt.Done(d.report)
			}
		}
	}
	if first != nil {
		return nil, first
	}
	return reports, nil
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
