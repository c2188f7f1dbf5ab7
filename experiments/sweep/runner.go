package sweep

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// RunFunc computes one run. It must be a pure function of the run (its
// seeds included), so that the output never depends on which worker ran
// it or when.
type RunFunc func(ctx context.Context, r experiments.Run) (*results.Tables, error)

// Runner executes runs in parallel into a directory, resumably: each
// finished run is recorded in Dir/runs/ID.gob before it counts as done,
// and a restarted sweep skips the runs recorded there by the same build.
type Runner struct {
	// Dir receives runs/ and the gathered Parquet tables.
	Dir string
	// Jobs bounds the runs in flight (default runtime.NumCPU()): the runs
	// are computed in a pool of Jobs slots of the runner's own, unless
	// Pool gives one.
	Jobs int
	// Progress receives progress lines (nil: silent). On a terminal
	// (Terminal true) one line is redrawn with \r; otherwise a line is
	// written about every 10% of the runs.
	Progress io.Writer
	Terminal bool
	// Execute computes a run (default: Timelines.Execute).
	Execute RunFunc
	// Timelines caches the timelines the runs replay, each dropped when
	// the last run that needs it is done (nil: a cache of the runner's
	// own, made by its first Sweep). Runners that share one (Reproduce's
	// figures) build a timeline their runs share once.
	Timelines *experiments.Timelines
	// Pool, when not nil, computes the runs in its slots instead of a
	// pool of Jobs slots: every pending run is queued in it at once,
	// ranked Rank among the sweeps that share it (Reproduce's figures),
	// and the pool starts each when its turn comes.
	Pool *Pool
	Rank int
	// Dataset, when not nil, says which sweep and shard Dir holds: it is
	// recorded in Dir/dataset.json, and a Dir that holds another data set
	// is refused (Merge checks shards with it).
	Dataset *Dataset
}

// Summary counts what a sweep did.
type Summary struct {
	// Runs is the number of runs of the sweep (this shard's), Resumed the
	// number found already recorded, Ran the number computed now.
	Runs, Resumed, Ran int
	// Foreign and Unreadable count the runs that had a record but were
	// run again (they are among the Ran): recorded by another build of
	// pipelab, or with a record that could not be decoded.
	Foreign, Unreadable int
}

// Sweep takes Dir's lock (LockFile: a second sweep or merge into Dir is
// refused while it runs), finishes or removes what a killed sweep left
// half written, runs every run not yet recorded in Dir/runs by this build, then
// gathers all of them into the Parquet tables of Dir (step sizes selected,
// schedule families ranked). When runs have ExtendGrid, a group whose
// selected step is at an edge of its grid gets runs at steps beyond it,
// round after round, until its choice is inside or the grid has grown by
// ExtendGrid steps at that edge (experiments.NextRound); Summary.Runs counts
// them, and a shard (Dataset.ShardCount > 0) refuses them. A record written by another build (another
// stamp, buildStamp) or one that does not decode is not trusted: the run
// is computed again and its record replaced, and one line on Progress
// says how many. On the first failure, or when ctx is cancelled, it
// starts no more runs and returns the error; the runs recorded so far stay
// recorded for the next Sweep to resume from.
func (rn *Runner) Sweep(ctx context.Context, runs []experiments.Run) (Summary, error) {
	sum := Summary{Runs: len(runs)}
	if err := experiments.CheckUniqueIDs(runs); err != nil {
		return sum, err
	}
	// Refused before the folder is touched.
	if experiments.Extends(runs) && rn.Dataset != nil && rn.Dataset.ShardCount > 0 {
		return sum, badInputf("spec key extend_grid: a shard (%s) cannot grow its step-size grids, which needs every run of a group; "+
			"sweep the spec whole, or set extend_grid: 0 to shard it (docs/methods.md, \"Selection\")", rn.Dataset.Shard())
	}
	lock, err := lockFolder(rn.Dir)
	if err != nil {
		return sum, err
	}
	defer lock.unlock()
	if rn.Dataset != nil {
		if err := claimFolder(rn.Dir, *rn.Dataset); err != nil {
			return sum, err
		}
	}
	// A killed sweep may have left temporary tables, or a committed write
	// of them half renamed, beside runs/.
	if err := results.Recover(rn.Dir); err != nil {
		return sum, err
	}
	store, err := openStore(rn.Dir)
	if err != nil {
		return sum, err
	}
	if rn.Timelines == nil {
		rn.Timelines = new(experiments.Timelines)
	}
	all, pending := slices.Clone(runs), runs
	// Each round runs what is pending, then, when grids may grow, selects
	// and queues the runs that extend the grids whose choice is at an edge
	// (experiments.NextRound); a group grows by at most ExtendGrid steps an
	// edge, so the rounds end.
	for round := 0; ; round++ {
		if err := rn.runPending(ctx, store, pending, &sum); err != nil {
			return sum, err
		}
		ds, err := store.gather(all)
		if err != nil {
			return sum, err
		}
		more, err := experiments.NextRound(all, ds, round)
		if err != nil {
			return sum, err
		}
		if len(more) == 0 {
			if err := experiments.WriteDataset(rn.Dir, ds); err != nil {
				return sum, err
			}
			rn.warnAtEdge(ds.Runs)
			return sum, nil
		}
		if rn.Progress != nil {
			runs := "runs"
			if len(more) == 1 {
				runs = "run"
			}
			fmt.Fprintf(rn.Progress, "step sizes selected at a grid's edge: %d more %s beyond it (extend_grid)\n", len(more), runs)
		}
		all = append(all, more...)
		sum.Runs += len(more)
		pending = more
	}
}

// runPending computes and records the runs not yet recorded by this build,
// counting them in sum.
func (rn *Runner) runPending(ctx context.Context, store *store, runs []experiments.Run, sum *Summary) error {
	resumed, foreign, unreadable := sum.Resumed, sum.Foreign, sum.Unreadable
	var pending []experiments.Run
	for _, r := range runs {
		state, err := store.state(r)
		if err != nil {
			return err
		}
		switch state {
		case recordTrusted:
			sum.Resumed++
			continue
		case recordForeign:
			sum.Foreign++
		case recordUnreadable:
			sum.Unreadable++
		}
		pending = append(pending, r)
	}
	if f, u := sum.Foreign-foreign, sum.Unreadable-unreadable; rn.Progress != nil && f+u > 0 {
		fmt.Fprintln(rn.Progress, rerunLine(f, u))
	}
	exec := rn.Execute
	if exec == nil {
		exec = rn.Timelines.Execute
	}
	prog := newProgress(rn.Progress, rn.Terminal, len(runs), sum.Resumed-resumed)
	// Each run's timelines stay cached until the last pending run that
	// needs them is done.
	rn.Timelines.Claim(pending)
	var mu sync.Mutex
	// compute runs r; record stamps and records its output, durably.
	compute := func(ctx context.Context, r experiments.Run) (*results.Tables, float64, error) {
		defer rn.Timelines.Release(r)
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		start := time.Now()
		out, err := exec(ctx, r)
		if err != nil {
			return nil, 0, fmt.Errorf("experiments: run %s (%s): %w", r.ID, r.Name, err)
		}
		return out, time.Since(start).Seconds(), nil
	}
	record := func(r experiments.Run, out *results.Tables, wall float64) error {
		experiments.Stamp(out, r, wall)
		if err := store.put(r, out); err != nil {
			return err
		}
		mu.Lock()
		sum.Ran++
		prog.step()
		mu.Unlock()
		return nil
	}
	pool := rn.Pool
	if pool == nil {
		jobs := rn.Jobs
		if jobs < 1 {
			jobs = runtime.NumCPU()
		}
		pool = NewPool(jobs)
	}
	err := rn.sweepPooled(ctx, pool, pending, compute, record)
	prog.finish()
	return err
}

// sweepPooled queues every pending run in the pool and waits for them to
// be recorded: the one way a runner computes its runs, in a pool of Jobs
// slots of its own or in the Pool it shares. A run holds its slot while it
// computes; its record is written and synced on a goroutine of its own, so
// that the next run computes meanwhile. After the first failure the runs
// still queued return at once.
func (rn *Runner) sweepPooled(ctx context.Context, pool *Pool, pending []experiments.Run, compute computeFunc, record recordFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	for _, r := range pending {
		wg.Add(1)
		pool.Go(rn.Rank, r, func() {
			out, wall, err := compute(ctx, r)
			if err != nil {
				fail(err)
				wg.Done()
				return
			}
			go func() {
				defer wg.Done()
				if err := record(r, out, wall); err != nil {
					fail(err)
				}
			}()
		})
	}
	wg.Wait()
	return first
}

// computeFunc computes a run and returns its output and computing
// seconds; recordFunc stamps and records that output.
type (
	computeFunc func(context.Context, experiments.Run) (*results.Tables, float64, error)
	recordFunc  func(experiments.Run, *results.Tables, float64) error
)

// rerunLine says how many recorded runs a resumed sweep runs again.
func rerunLine(foreign, unreadable int) string {
	runs := func(n int) string {
		if n == 1 {
			return "1 run"
		}
		return fmt.Sprintf("%d runs", n)
	}
	switch {
	case unreadable == 0:
		return fmt.Sprintf("rerunning %s recorded by another build of pipelab", runs(foreign))
	case foreign == 0:
		return fmt.Sprintf("rerunning %s whose record could not be read", runs(unreadable))
	}
	return fmt.Sprintf("rerunning %s recorded by another build of pipelab and %d whose record could not be read", runs(foreign), unreadable)
}

// warnAtEdge says on the progress output how many selected runs chose a
// step at an edge of its grid (WriteDataset has selected them; the runs
// table's selection_bound marks them): their best step may lie beyond
// the grid, which extend_grid lets a sweep grow.
func (rn *Runner) warnAtEdge(rows []results.Run) {
	n := 0
	for _, r := range rows {
		if r.Selected && r.SelectionBound != "" {
			n++
		}
	}
	if n > 0 && rn.Progress != nil {
		fmt.Fprintf(rn.Progress, "warning: %d selected runs chose the step at an edge of its grid (selection_bound in %s): the best step may lie beyond it; extend_grid grows the grids\n", n, results.RunsFile)
	}
}
