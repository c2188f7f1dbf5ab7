package sweep

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// waitFor polls until the pool has n waiting requests.
func waitFor(t *testing.T, p *Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.mu.Lock()
		got := len(p.waiting)
		p.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("%d requests never came to wait", n)
}

// A freed slot goes to the work after a sweep's runs (Do) first, then to
// the longest estimated run, ties to the lowest rank, then the lowest run
// index, however the requests arrived.
func TestPoolGrantsLongestFirst(t *testing.T) {
	p := NewPool(1)
	if err := p.acquire(context.Background(), urgency{}); err != nil {
		t.Fatal(err)
	}
	type key struct {
		seconds     float64
		rank, index int
		do          bool
	}
	arrivals := []key{{1, 2, 0, false}, {1, 1, 5, false}, {3, 1, 3, false}, {1, 0, 9, false},
		{0, 2, 0, true}, {1, 1, 4, false}, {0, 1, 0, true}, {0.5, 0, 1, false}}
	var mu sync.Mutex
	var order []key
	var wg sync.WaitGroup
	for n, k := range arrivals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := func() {
				mu.Lock()
				order = append(order, k)
				mu.Unlock()
			}
			if k.do {
				p.Do(context.Background(), k.rank, func() error { run(); return nil })
				return
			}
			p.acquire(context.Background(), urgency{k.seconds, k.rank, k.index})
			run()
			p.release()
		}()
		waitFor(t, p, n+1)
	}
	p.release()
	wg.Wait()
	want := []key{{0, 1, 0, true}, {0, 2, 0, true}, {3, 1, 3, false}, {1, 0, 9, false}, {1, 1, 4, false},
		{1, 1, 5, false}, {1, 2, 0, false}, {0.5, 0, 1, false}}
	if !slices.Equal(order, want) {
		t.Errorf("granted %v, want %v", order, want)
	}
}

// However many runs are queued, no more than the pool's slots compute at
// once, and every run is computed.
func TestPoolBoundsRunsInFlight(t *testing.T) {
	p := NewPool(2)
	var now, peak, ran atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		p.Go(0, experiments.Run{Index: i}, func() {
			defer wg.Done()
			n := now.Add(1)
			for {
				old := peak.Load()
				if n <= old || peak.CompareAndSwap(old, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			now.Add(-1)
			ran.Add(1)
		})
	}
	wg.Wait()
	if peak.Load() > 2 || ran.Load() != 20 {
		t.Errorf("%d runs at once at most and %d run, want at most 2 and 20", peak.Load(), ran.Load())
	}
}

// A request given up while waiting returns the context's error and leaves
// the pool's slots as they were.
func TestPoolCancelWhileWaiting(t *testing.T) {
	p := NewPool(1)
	if err := p.acquire(context.Background(), urgency{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- p.acquire(ctx, urgency{index: 1}) }()
	waitFor(t, p, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait returned %v, want context.Canceled", err)
	}
	p.release()
	if err := p.acquire(context.Background(), urgency{index: 2}); err != nil || p.free != 0 {
		t.Errorf("after the cancelled wait: %v, %d slots free; want the one slot taken", err, p.free)
	}
}

// A run's wall-clock column counts its computing, not its wait for a
// slot: a pooled sweep whose only slot is held for 50 ms records instant
// runs.
func TestPoolWallSecondsExcludeWait(t *testing.T) {
	p := NewPool(1)
	if err := p.acquire(context.Background(), urgency{}); err != nil {
		t.Fatal(err)
	}
	runs := tinyRuns(t)
	dir := t.TempDir()
	errc := make(chan error)
	go func() {
		rn := Runner{Dir: dir, Pool: p, Execute: fakeRun}
		_, err := rn.Sweep(context.Background(), runs)
		errc <- err
	}()
	waitFor(t, p, len(runs))
	time.Sleep(50 * time.Millisecond)
	p.release()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	ds, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ds.Runs {
		if w := r.WallSeconds; !(w >= 0 && w < 0.05) {
			t.Errorf("run %s: wall seconds %g, want the instant run's, not the 50 ms wait", r.RunID, w)
		}
	}
}

// Tasks queued with Go wait without a goroutine each, and run one slot at
// a time in the pool's order: here, with estimates and ranks equal, by run
// index, whatever the order they were queued in.
func TestPoolGoQueuesWithoutGoroutines(t *testing.T) {
	p := NewPool(1)
	if err := p.acquire(context.Background(), urgency{}); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	before := runtime.NumGoroutine()
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
		wg.Add(1)
		p.Go(0, experiments.Run{Index: i}, func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	// One goroutine per queued task would add n; the queue adds none.
	if extra := runtime.NumGoroutine() - before; extra > 10 {
		t.Errorf("%d goroutines added by %d queued tasks, want none", extra, n)
	}
	p.release()
	wg.Wait()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(order, want) {
		t.Errorf("tasks ran in the order %v…, want by run index", order[:min(10, len(order))])
	}
}

// A sweep through a pool writes the tables a sweep with its own workers
// writes, and stops at a failing run with that run's error.
func TestRunnerPoolSameTables(t *testing.T) {
	runs := tinyRuns(t)
	tmp := t.TempDir()
	alone, pooled := filepath.Join(tmp, "alone"), filepath.Join(tmp, "pooled")
	sweep(t, alone, 1, runs)
	rn := Runner{Dir: pooled, Pool: NewPool(2), Execute: fakeRun}
	if sum, err := rn.Sweep(context.Background(), runs); err != nil || sum.Ran != len(runs) {
		t.Fatalf("pooled sweep: %+v, %v; want %d runs", sum, err, len(runs))
	}
	if got, want := readDeterministic(t, pooled), readDeterministic(t, alone); !reflect.DeepEqual(got, want) {
		t.Error("the pooled sweep's tables differ from the sweep's with its own workers")
	}
	sameFile(t, filepath.Join(alone, results.CurvesFile), filepath.Join(pooled, results.CurvesFile))

	failing := Runner{Dir: filepath.Join(tmp, "failing"), Pool: NewPool(2), Execute: func(ctx context.Context, r experiments.Run) (*results.Tables, error) {
		if r.Index == 1 {
			return nil, errors.New("boom")
		}
		return fakeRun(ctx, r)
	}}
	if _, err := failing.Sweep(context.Background(), runs); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a pooled sweep with a failing run returned %v, want its error", err)
	}
}
