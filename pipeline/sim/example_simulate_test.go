package sim_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// 1F1B on 4 ranks with 8 microbatches, T_F = 1, T_B = 2 and a hop of 0.25:
// (M + P - 1)(T_F + T_B) = 33 without communication, plus 2c((P - 1)M/P +
// P - 2) = 4 for the hops on its critical path.
func ExampleSimulate() {
	tb, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		panic(err)
	}
	tl, err := sim.Simulate(tb, cost.Explicit{TF: 1, TB: 2, Comm: 0.25}, sim.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("makespan", sim.Makespan(tl))
	fmt.Printf("bubble ratio %.3f\n", sim.BubbleRatio(tl))
	for _, st := range sim.RankStats(tl, nil) {
		fmt.Printf("rank %d: busy %v, waits %v for transfers, holds up to %d activations\n", st.Rank, st.Busy, st.CommWait, st.PeakActivations)
	}
	// Output:
	// makespan 37
	// bubble ratio 0.351
	// rank 0: busy 24, waits 1.75 for transfers, holds up to 4 activations
	// rank 1: busy 24, waits 1.75 for transfers, holds up to 3 activations
	// rank 2: busy 24, waits 1.75 for transfers, holds up to 2 activations
	// rank 3: busy 24, waits 1.5 for transfers, holds up to 1 activations
}

// Five iterations of ZB-H1 with 30% compute noise, and the same under the
// readiness policy that prefers input gradients, then forwards, then weight
// gradients.
func ExampleSimulateIterations() {
	tb, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		panic(err)
	}
	cost := cost.Explicit{TF: 1, TB: 1, TW: 1}
	noise := sim.Variability{Sigma: 0.3}
	for _, opt := range []sim.Options{
		{Policy: sim.Fixed, Variability: noise},
		{Policy: sim.Ready, Hint: sim.InputForwardWeight, Variability: noise},
	} {
		it, err := sim.SimulateIterations(tb, cost, opt, 5, 1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: mean %.2f ± %.2f\n", opt.Policy, it.Mean, it.Spread)
	}
	// Output:
	// fixed: mean 29.51 ± 1.31
	// ready: mean 29.67 ± 0.87
}

// The formula level of the three-level comparison: ZB-H1's bubble is
// (P - 1)(T_F + T_B - T_W).
func ExampleClosedForm() {
	est, ok := sim.ClosedForm("zb-h1", pipeline.Shape{Ranks: 8, Microbatches: 32}, cost.Stage{TF: 1, TB: 1, TW: 1})
	fmt.Println(ok, est.Makespan, est.Bubble, est.PeakActivations)
	// Output:
	// true 103 7 8
}

// ZB-H1 in unit time with rank 3 twice as slow. Rank 1's row puts I0 after
// its three warm-up forwards; the plan (no straggler) leaves it idle 3 steps
// for it. Fixed waits for I0 however late; ready as planned waits those 3
// steps and then runs the forward F3 that has arrived; ready without wait
// runs F3 the moment it arrives, as RRFP does.
func ExamplePatience() {
	tb, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		panic(err)
	}
	slow := sim.Variability{Stragglers: map[int]float64{3: 2}}
	for _, opt := range []sim.Options{
		{Policy: sim.Fixed, Variability: slow},
		{Policy: sim.Ready, Patience: sim.WaitAsPlanned, Variability: slow},
		{Policy: sim.Ready, Patience: sim.NoWait, Variability: slow},
	} {
		tl, err := sim.Simulate(tb, cost.Unit{}, opt)
		if err != nil {
			panic(err)
		}
		label := opt.Policy.String()
		if opt.Policy == sim.Ready {
			label += ", patience " + opt.Patience.String()
		}
		for _, e := range tl.Events {
			if e.Rank == 1 && e.Action == pipeline.F(1, 3) {
				fmt.Printf("%s: rank 1 starts F3 at %v\n", label, e.Start)
			}
		}
	}
	// Output:
	// fixed: rank 1 starts F3 at 9
	// ready, patience plan: rank 1 starts F3 at 6
	// ready, patience none: rank 1 starts F3 at 4
}
