package sim

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Without variability every iteration is the exact simulation.
func TestVariabilityZeroIsExact(t *testing.T) {
	tb := generate(t, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	cost := cost.Explicit{TF: 1, TB: 2, Comm: 0.5}
	want := Makespan(simulateOK(t, tb, cost, Options{}))
	it, err := SimulateIterations(tb, cost, Options{}, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(it.Makespans, []float64{want, want, want}) || it.Mean != want || it.Spread != 0 {
		t.Errorf("iterations %+v, want three of %v with no spread", it, want)
	}
}

// The same seed gives the same makespans; another seed other ones; and the
// summary is the sample mean and standard deviation (compared with gonum).
func TestVariabilitySeeded(t *testing.T) {
	tb := generate(t, "zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8})
	cost := cost.Explicit{TF: 1, TB: 1, TW: 1, Comm: 0.25}
	opt := Options{Variability: Variability{Sigma: 0.3, CommSigma: 0.3}}
	a, err := SimulateIterations(tb, cost, opt, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SimulateIterations(tb, cost, opt, 5, 1)
	c, _ := SimulateIterations(tb, cost, opt, 5, 2)
	if !slices.Equal(a.Makespans, b.Makespans) {
		t.Errorf("seed 1 twice: %v and %v", a.Makespans, b.Makespans)
	}
	if slices.Equal(a.Makespans, c.Makespans) {
		t.Errorf("seeds 1 and 2 gave the same makespans %v", a.Makespans)
	}
	if slices.Max(a.Makespans) == slices.Min(a.Makespans) {
		t.Errorf("iterations of one seed do not differ: %v", a.Makespans)
	}
	mean, sd := stat.MeanStdDev(a.Makespans, nil)
	if math.Abs(a.Mean-mean) > 1e-12*mean || math.Abs(a.Spread-sd) > 1e-12*mean {
		t.Errorf("mean, spread = %v, %v; gonum says %v, %v", a.Mean, a.Spread, mean, sd)
	}
	if _, err := SimulateIterations(tb, cost, opt, 0, 1); err == nil {
		t.Error("k = 0 accepted")
	}
}

// Iterations.First is iteration 0's timeline: the one Simulate gives for
// the same options with Variability.Seed set to the seed of the
// iterations, whatever seed the options held before, and its makespan is
// the first of the makespans.
func TestIterationsFirstIsSimulate(t *testing.T) {
	tb := generate(t, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	cost := cost.Explicit{TF: 1, TB: 2, Comm: 0.5}
	for _, optSeed := range []uint64{9, 3} {
		opt := Options{Policy: Ready, Variability: Variability{Seed: optSeed, Sigma: 0.3, CommSigma: 0.2}}
		it, err := SimulateIterations(tb, cost, opt, 4, 9)
		if err != nil {
			t.Fatal(err)
		}
		opt.Variability.Seed = 9
		want := simulateOK(t, tb, cost, opt)
		if it.First == nil || it.First.Table != want.Table || !reflect.DeepEqual(it.First.Events, want.Events) {
			t.Errorf("options seed %d: First differs from Simulate with seed 9", optSeed)
		}
		if it.Makespans[0] != Makespan(want) {
			t.Errorf("options seed %d: first makespan %v, Simulate's %v", optSeed, it.Makespans[0], Makespan(want))
		}
	}
}

// The noise factor exp(σZ - σ²/2) has mean 1 and variance exp(σ²) - 1
// (log-normal moments): over n draws the sample mean is within four
// standard errors of 1.
func TestVariabilityLogNormalMeanOne(t *testing.T) {
	const n = 20000
	for _, sigma := range []float64{0.1, 0.3, 0.5} {
		ln := newLogNormal(sigma, 42, "test", 0)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = ln.next()
		}
		se := math.Sqrt((math.Exp(sigma*sigma) - 1) / n)
		if m := stat.Mean(xs, nil); math.Abs(m-1) > 4*se {
			t.Errorf("σ=%v: mean factor %v, want 1 ± %v", sigma, m, 4*se)
		}
	}
}

// A straggler multiplies every compute duration of its rank by its factor:
// on one rank GPipe's makespan scales exactly, and on several the
// straggler's busy time does.
func TestVariabilityStraggler(t *testing.T) {
	cost := cost.Explicit{TF: 1, TB: 2}
	one := generate(t, "gpipe", pipeline.Shape{Ranks: 1, Microbatches: 4})
	base := Makespan(simulateOK(t, one, cost, Options{}))
	slow := Makespan(simulateOK(t, one, cost, Options{Variability: Variability{Stragglers: map[int]float64{0: 1.5}}}))
	if slow != 1.5*base {
		t.Errorf("one rank at 1.5x: makespan %v, want %v", slow, 1.5*base)
	}
	tb := generate(t, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	tl := simulateOK(t, tb, cost, Options{Variability: Variability{Stragglers: map[int]float64{2: 2}}})
	for _, st := range RankStats(tl, nil) {
		want := 8 * (cost.TF + cost.TB) // M(T_F + T_B)
		if st.Rank == 2 {
			want *= 2
		}
		if st.Busy != want {
			t.Errorf("rank %d busy %v, want %v", st.Rank, st.Busy, want)
		}
	}
}

// Fixed and Ready draw the same durations for the same seed (common random
// numbers), and communication jitter leaves compute durations alone.
func TestVariabilityCommonRandomNumbers(t *testing.T) {
	tb := generate(t, "interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 2})
	cost := cost.Explicit{TF: 1, TB: 2, Comm: 0.5}
	durations := func(opt Options) map[[2]int]float64 {
		out := map[[2]int]float64{}
		for _, e := range simulateOK(t, tb, cost, opt).Events {
			if e.Action.Kind.IsCompute() {
				out[[2]int{e.Rank, e.Index}] = e.End - e.Start
			}
		}
		return out
	}
	v := Variability{Seed: 3, Sigma: 0.5, CommSigma: 0.5}
	fixed := durations(Options{Variability: v})
	ready := durations(Options{Policy: Ready, Hint: BackwardFirst, Variability: v})
	for k, d := range fixed {
		// End - Start rounds differently at different start times.
		if math.Abs(ready[k]-d) > 1e-12*d {
			t.Fatalf("rank %d position %d: %v under fixed, %v under ready", k[0], k[1], d, ready[k])
		}
	}
	jitterOnly := simulateOK(t, tb, cost, Options{Variability: Variability{Seed: 3, CommSigma: 0.5}})
	transfers := map[float64]bool{}
	for _, e := range jitterOnly.Events {
		switch {
		case e.Action.Kind.IsCompute() && math.Abs(e.End-e.Start-cost.Compute(e.Action)) > 1e-12*e.End:
			t.Errorf("%s takes %v under communication jitter, want %v", e.Action, e.End-e.Start, cost.Compute(e.Action))
		case e.Action.Kind.IsComm():
			transfers[e.End-e.Start] = true
		}
	}
	if len(transfers) < 2 {
		t.Errorf("jittered transfers all take the same time: %v", transfers)
	}
}
