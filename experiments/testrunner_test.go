package experiments

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pipelab/pipelab/results"
)

// testRunner sweeps runs into Dir as sweep.Runner does, for this package's
// tests, which cannot import package sweep (it imports this one): every run
// computed by Execute (Timelines.Execute on one cache for the sweep, when
// nil) on Jobs goroutines, its rows stamped (Stamp, wall-clock 0), round
// after round while step-size grids grow (NextRound), then the tables
// written (WriteDataset). It keeps no records, takes no lock and has no
// pool: package sweep's tests cover those.
type testRunner struct {
	Dir     string
	Jobs    int
	Execute func(context.Context, Run) (*results.Tables, error)
}

// testSummary counts the runs of a testRunner's sweep, those that grew
// the grids included, and the runs computed.
type testSummary struct{ Runs, Ran int }

func (rn *testRunner) Sweep(ctx context.Context, runs []Run) (testSummary, error) {
	sum := testSummary{Runs: len(runs)}
	if err := CheckUniqueIDs(runs); err != nil {
		return sum, err
	}
	cache := new(Timelines)
	exec := rn.Execute
	if exec == nil {
		exec = cache.Execute
	}
	var mu sync.Mutex
	outs := map[string]*results.Tables{}
	all, pending := slices.Clone(runs), runs
	for round := 0; ; round++ {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(rn.Jobs, 1))
		cache.Claim(pending)
		for _, r := range pending {
			g.Go(func() error {
				defer cache.Release(r)
				out, err := exec(gctx, r)
				if err != nil {
					return fmt.Errorf("run %s (%s): %w", r.ID, r.Name, err)
				}
				Stamp(out, r, 0)
				mu.Lock()
				defer mu.Unlock()
				outs[r.ID] = out
				sum.Ran++
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return sum, err
		}
		ds := &results.Tables{}
		for _, r := range all {
			AppendTables(ds, outs[r.ID])
		}
		more, err := NextRound(all, ds, round)
		if err != nil {
			return sum, err
		}
		if len(more) == 0 {
			return sum, WriteDataset(rn.Dir, ds)
		}
		all = append(all, more...)
		sum.Runs += len(more)
		pending = more
	}
}

// The helpers below are sweep's tests' too (runner_test.go,
// bench_memory_test.go), which this package's tests cannot import.

// readDeterministic reads a results directory with the wall-clock column,
// the one that differs between executions by design, zeroed.
func readDeterministic(t *testing.T, dir string) *results.Tables {
	t.Helper()
	ds, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The nulls of the nullable columns read as NaN, which DeepEqual
	// cannot compare: they become a sign that no run produces.
	null := func(v *float64) {
		if math.IsNaN(*v) {
			*v = -1
		}
	}
	for i := range ds.Runs {
		ds.Runs[i].WallSeconds = 0
		null(&ds.Runs[i].TimeToTarget)
		null(&ds.Runs[i].LossAtBudget)
		null(&ds.Runs[i].HeldOutLoss)
	}
	for i := range ds.Curves {
		null(&ds.Curves[i].ValidationLoss)
	}
	return ds
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// samplePeak reads a memory measure every 20 ms until the returned
// function is called, which stops the sampling and returns the largest
// value read.
func samplePeak(read func() uint64) func() uint64 {
	var peak atomic.Uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), read()))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-sampled
		return peak.Load()
	}
}
