package optim

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// Feeding RPD PipeDream's exact delays and op order reproduces PipeDream's
// trajectory bit for bit (docs/reference.md §1.4), gradient noise included,
// on the stage-wise path and on the generic one, with the loss tracked or
// evaluated afresh.
func TestRPDWithExactDelaysIsPipeDream(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	exact, err := Delays(tl)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		obj  objectives.Objective
		set  Settings
	}{
		{"logistic with noise", logistic(t, 80, 30, 4, 8, 0.5, 1), Settings{StepSize: 0.05, Seed: 3, LogEvery: 7}},
		{"logistic tracked", logistic(t, 80, 30, 4, 8, 0.5, 1), Settings{StepSize: 0.05, Seed: 3, LogEvery: 1}},
		{"quadratic", quadratic(t, 80, 30, 4, 10, 2), Settings{StepSize: 0.01, Seed: 1}},
		{"generic objective", plain{logistic(t, 80, 30, 4, 8, 0, 1)}, Settings{StepSize: 0.05, LogEvery: 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pd := mustRun(t, c.obj, PipeDream{Timeline: tl}, c.set)
			rpd := mustRun(t, c.obj, RPD{Delays: exact}, c.set)
			identicalResults(t, "RPD(exact) vs PipeDream", rpd, pd)
			if rpd.BlockUpdates != 160 || pd.BlockUpdates != 160 {
				t.Errorf("%d and %d block updates, want N·S = 160", rpd.BlockUpdates, pd.BlockUpdates)
			}
		})
	}
}

// With δ = 0 every delay is zero, and RPD is randomized block-coordinate
// SGD: checked against that method written out with the same draws (stage,
// microbatch, then S delays from the sampling stream).
func TestRPDWithoutDelaysIsBlockCoordinateSGD(t *testing.T) {
	obj := quadratic(t, 40, 12, 3, 5, 4)
	const gamma, seed, n = 0.05, 9, 10
	res := mustRun(t, obj, RPD{Delays: Uniform{Stages: 3, Delta: 0, Microbatches: n}}, Settings{StepSize: gamma, Seed: seed})
	if res.BlockUpdates != n*3 {
		t.Fatalf("%d iterations, want K = N·S = %d", res.BlockUpdates, n*3)
	}
	rng := objectives.NewRand(seed, objectives.StreamSampling)
	x, g := obj.Init(), make([]float64, 12)
	bl := obj.Blocks()
	for k := 0; k < n*3; k++ {
		s, m := rng.IntN(3), rng.IntN(n)
		for range 3 {
			rng.IntN(1)
		}
		obj.Gradient(g, x, m%obj.Batches(), nil)
		for j := bl[s]; j < bl[s+1]; j++ {
			x[j] -= gamma * g[j]
		}
	}
	closeVectors(t, "x", res.X, x, 1e-13)
}

// The uniform model draws every delay from 0..min(δ, k) and RPD keeps
// enough versions to serve them: a run with δ = 14 on S = 4 completes and
// reads no version older than δ.
func TestUniformDelaysStayInRange(t *testing.T) {
	u := Uniform{Stages: 4, Delta: DefaultDelta(4), Microbatches: 40}
	rng := objectives.NewRand(1, objectives.StreamSampling)
	it := Iteration{Delays: make([]int, 4)}
	seen := 0
	for k := 0; k < u.Len(); k++ {
		if err := u.Draw(k, &it, rng); err != nil {
			t.Fatal(err)
		}
		for _, d := range it.Delays {
			if d < 0 || d > min(14, k) {
				t.Fatalf("iteration %d: delay %d outside 0..%d", k, d, min(14, k))
			}
			seen = max(seen, d)
		}
	}
	if seen != 14 {
		t.Errorf("largest delay drawn %d, want δ = 14 to occur in 160 × 4 draws", seen)
	}
	obj := quadratic(t, 40, 16, 4, 5, 1)
	if _, err := Run(obj, RPD{Delays: u}, Settings{StepSize: 0.01}); err != nil {
		t.Fatal(err)
	}
}

// A version history with δ = 2 answers every read up to δ updates behind
// its newest stamp, from the version current then, and refuses older ones
// and reads before the start: a block changed by updates 2, 4, ..., 10
// answers 8 to 10 and beyond, and a block changed only by update 100 still
// answers 98 from its initial version.
func TestVersionsReachBackDelta(t *testing.T) {
	v := newVersions(3, []float64{0})
	for k := 1; k <= 5; k++ {
		v.push(2*k, []float64{float64(k)}) // block changed by updates 2, 4, 6, 8, 10
	}
	rare := newVersions(3, []float64{0})
	rare.push(100, []float64{1})
	cases := []struct {
		v    *versions
		at   int
		want float64
		ok   bool
	}{{v, 12, 5, true}, {v, 10, 5, true}, {v, 9, 4, true}, {v, 8, 4, true}, {v, 7, 0, false}, {v, 6, 0, false},
		{rare, 100, 1, true}, {rare, 99, 0, true}, {rare, 98, 0, true}, {rare, 97, 0, false}, {rare, -1, 0, false}}
	for n, c := range cases {
		got, ok := c.v.at(c.at)
		if ok != c.ok || ok && got[0] != c.want {
			t.Errorf("case %d, after %d updates: %v, %v; want %g, %v", n, c.at, got, ok, c.want, c.ok)
		}
	}
	if fresh, ok := newVersions(3, []float64{7}).at(-1); ok {
		t.Errorf("a read before the start: %v, want a refusal", fresh)
	}
}

func TestReadDelayTrace(t *testing.T) {
	dt, err := ReadDelayTrace(strings.NewReader("stage,batch,d0,d1\n1,0,0,0\n0,3,1,0\n\n1,2,2,1\n"), "trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	if dt.Stages != 2 || dt.Len() != 3 || dt.Bound() != 2 || dt.Rows[1].Microbatch != 3 {
		t.Errorf("trace %+v", dt)
	}
	obj := quadratic(t, 8, 4, 2, 2, 1)
	if _, err := Run(obj, RPD{Delays: dt}, Settings{StepSize: 0.1}); err != nil {
		t.Errorf("replaying the trace: %v", err)
	}
	if _, err := Run(obj, RPD{Delays: dt, Iterations: 4}, Settings{StepSize: 0.1}); err == nil {
		t.Error("4 iterations from a 3-row trace: no error")
	}
	bad := []struct{ name, text, want string }{
		{"not a number", "0,0,0\n1,x,0\n", "trace.csv line 2 column 2"},
		{"ragged", "0,0,0,0\n1,0,0\n", "trace.csv line 2: 3 columns, want 4"},
		{"stage out of range", "2,0,0,0\n", "trace.csv line 1 column 1: stage 2 of 2"},
		{"delay before the start", "0,0,0,0\n0,0,2,0\n", "trace.csv line 2 column 3"},
		{"empty", "stage,batch,d0\n", "no delay rows"},
	}
	for _, c := range bad {
		_, err := ReadDelayTrace(strings.NewReader(c.text), "trace.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
