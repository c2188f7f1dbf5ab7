package optim_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// PipeDream's steady-state delays for S = 4 (docs/reference.md §1.3).
func ExampleDelays() {
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	dt, _ := optim.Delays(sim.FromGrid(tab))
	st := dt.Stats(optim.Steady)
	fmt.Printf("%g steps, %d updates, max %d, mean %.2f\n", dt.TimeSteps, len(dt.Rows), st.Max, st.Mean)
	// Output:
	// 86 steps, 160 updates, max 14, mean 7.55
}

// Replay asynchronous PipeDream on a random quadratic, then RPD fed
// PipeDream's exact delays, which retraces it.
func ExampleRun() {
	data, _ := objectives.RandomQuadratic(400, 64, 1)
	f, _ := objectives.NewLeastSquares(data, 4, 20)
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 100})
	tl := sim.FromGrid(tab)
	set := optim.Settings{StepSize: 1.0 / 64, Seed: 1, LogEvery: 100}

	pd, err := optim.Run(f, optim.PipeDream{Timeline: tl}, set)
	if err != nil {
		fmt.Println(err)
		return
	}
	exact, _ := optim.Delays(tl)
	rpd, _ := optim.Run(f, optim.RPD{Delays: exact}, set)

	fmt.Printf("%s: %d block updates in %g steps, %d records\n", pd.Method, pd.BlockUpdates, pd.Time, len(pd.Records))
	fmt.Println("loss decreased:", pd.FinalLoss < pd.Records[0].Loss/10)
	fmt.Println("rpd(exact) == pipedream:", rpd.FinalLoss == pd.FinalLoss)
	// Output:
	// pipedream: 400 block updates in 206 steps, 5 records
	// loss decreased: true
	// rpd(exact) == pipedream: true
}

// Equal-time matching: the smallest N whose PipeDream timeline reaches a
// budget of 3180 steps with S = 8 (docs/reference.md §1.6).
func ExampleMatchBudget() {
	m, _ := optim.MatchBudget(3180, optim.GridDuration("pipedream", pipeline.Shape{Ranks: 8}))
	fmt.Printf("N = %d, %g steps, overshoot %g\n", m.Microbatches, m.Time, m.Overshoot)
	// Output:
	// N = 1583, 3180 steps, overshoot 0
}

// Synchronous SGD on a GPipe flush: every iteration steps each of the S
// stages once and takes GPipe's 2(N + S - 1) unit steps (docs/reference.md §2),
// so 10 iterations with S = 4, N = 4 are 40 block updates in 140 steps.
func ExampleSync() {
	data, _ := objectives.RandomQuadratic(400, 64, 1)
	f, _ := objectives.NewLeastSquares(data, 4, 20)
	tab, _ := pipeline.Generate("gpipe", pipeline.Shape{Ranks: 4, Microbatches: 4})
	res, err := optim.Run(f, optim.Sync{Timeline: sim.FromGrid(tab), Iterations: 10}, optim.Settings{StepSize: 1.0 / 64, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d block updates, %d microbatches in %g steps\n", res.BlockUpdates, res.Microbatches, res.Time)
	// Output:
	// 40 block updates, 40 microbatches in 140 steps
}

// A step-size grid of powers of two, as the paper sweeps it.
func ExamplePowersOfTwo() {
	fmt.Println(optim.PowersOfTwo(-3, 1))
	// Output:
	// [0.125 0.25 0.5 1 2]
}

// BestFinal ranks step sizes by their final loss averaged over seeds and
// never picks one with a diverged run: here 0.2 (mean 0.4) beats 0.1
// (mean 0.6), and 0.4 diverged.
func ExampleBestFinal() {
	steps := []float64{0.1, 0.2, 0.4}
	runs := [][]*optim.Result{
		{{FinalLoss: 0.5}, {FinalLoss: 0.7}},
		{{FinalLoss: 0.3}, {FinalLoss: 0.5}},
		{{FinalLoss: 0.1}, {FinalLoss: math.Inf(1), Diverged: true}},
	}
	c, err := optim.BestFinal{}.Choose(steps, runs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s chose step %g (index %d), mean final loss %g\n", c.Rule, c.StepSize, c.Index, c.Score)
	// Output:
	// best-final chose step 0.2 (index 1), mean final loss 0.4
}

// A recorded delay trace for S = 2: each line is one block update, its
// stage, its batch and the delay of the block read on each stage (at most
// the number of updates before it).
func ExampleReadDelayTrace() {
	trace := "stage,batch,d0,d1\n0,0,0,0\n1,0,1,0\n0,1,1,2\n"
	dt, err := optim.ReadDelayTrace(strings.NewReader(trace), "trace.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d stages, %d updates, δ = %d\n", dt.Stages, dt.Len(), dt.Bound())
	_, err = optim.ReadDelayTrace(strings.NewReader("0,0,1,0\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// 2 stages, 3 updates, δ = 2
	// optim: bad.csv line 1 column 3: delay 1 exceeds the 0 updates before this one
}

// FastestToTarget picks the step whose seeds reach the target soonest on
// average; a step where a seed never reached it is not a candidate.
func ExampleFastestToTarget() {
	res := func(ttt float64) *optim.Result { return &optim.Result{TimeToTarget: ttt, FinalLoss: 0.5} }
	steps := []float64{0.01, 0.02, 0.04}
	runs := [][]*optim.Result{{res(9), res(11)}, {res(6), res(8)}, {res(2), res(math.NaN())}}
	c, _ := optim.FastestToTarget{}.Choose(steps, runs)
	fmt.Println(c.StepSize, c.Score)
	// Output: 0.02 7
}

// A method's traits come from its descriptor, not from its name.
func ExampleMethodNamed() {
	d, err := optim.MethodNamed("2bw")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Async(), d.Clocked(), d.Takes(optim.ParamAccumulate), d.Family)
	_, err = optim.MethodNamed("pd")
	fmt.Println(err)
	// Output:
	// true true true pipedream
	// optim: invalid settings: unknown method "pd" (known: pipedream, pd-nostash, 2bw, pipemare, predict, dc, dc-a, ef, rpd, localsgd, sync)
}
