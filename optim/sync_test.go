package optim

import (
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// Synchronous SGD on a GPipe flush whose N microbatches cover the data
// exactly once (N = Batches, equal batches) averages the batch gradients
// into the full gradient, so each iteration is a full-batch gradient step;
// checked against gradient descent on the same data with one batch of all
// n rows. Each iteration takes GPipe's 2(N + S - 1) unit steps
// (docs/reference.md §2).
func TestSyncOnAFlushIsFullBatchGradientDescent(t *testing.T) {
	data, err := objectives.RandomQuadratic(40, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	batched, _ := objectives.NewLeastSquares(data, 2, 5) // 8 batches
	full, _ := objectives.NewLeastSquares(data, 2, 40)   // 1 batch
	const S, N, iters, gamma = 2, 8, 6, 0.05
	tl := generate(t, "gpipe", pipeline.Shape{Ranks: S, Microbatches: N})
	res := mustRun(t, batched, Sync{Timeline: tl, Iterations: iters}, Settings{StepSize: gamma, LogEvery: S})

	x := full.Init()
	for range iters {
		sgdStep(full, x, 0, gamma)
	}
	closeVectors(t, "x", res.X, x, 1e-12)

	period := float64(2 * (N + S - 1))
	if len(res.Records) != iters+1 {
		t.Fatalf("%d records, want one per iteration and the start", len(res.Records))
	}
	for i, r := range res.Records {
		if r.Time != float64(i)*period || r.Updates != i*S {
			t.Errorf("record %d at time %g after %d updates, want %g and %d", i, r.Time, r.Updates, float64(i)*period, i*S)
		}
	}
	if res.Microbatches != N*iters || res.Time != iters*period {
		t.Errorf("result covers %d microbatches in %g, want %d in %g", res.Microbatches, res.Time, N*iters, iters*period)
	}
}

// Nothing changes the weights within a flush iteration, so a schedule with
// split backwards (ZB-H1's I and W) gives the same iterates as GPipe; only
// the time per iteration, its own makespan, differs.
func TestSyncIgnoresTheOrderWithinAnIteration(t *testing.T) {
	obj := quadratic(t, 48, 9, 3, 4, 2)
	sh := pipeline.Shape{Ranks: 3, Microbatches: 6}
	zb := generate(t, "zb-h1", sh)
	a := mustRun(t, obj, Sync{Timeline: generate(t, "gpipe", sh), Iterations: 4}, Settings{StepSize: 0.03})
	b := mustRun(t, obj, Sync{Timeline: zb, Iterations: 4}, Settings{StepSize: 0.03})
	identicalResults(t, "zb-h1 vs gpipe", b, a)
	if want := 4 * endTime(zb); b.Time != want {
		t.Errorf("zb-h1 run took %g, want 4 × its makespan = %g", b.Time, want)
	}
}
