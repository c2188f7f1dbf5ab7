package optim_test

import (
	"fmt"

	"pipelab/objectives"
	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// PipeDream's steady-state delays for S = 4 (REFERENCE.md §1.3).
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
// budget of 3180 steps with S = 8 (REFERENCE.md §1.6).
func ExampleMatchBudget() {
	m, _ := optim.MatchBudget(3180, optim.GridDuration("pipedream", pipeline.Shape{Ranks: 8}))
	fmt.Printf("N = %d, %g steps, overshoot %g\n", m.Microbatches, m.Time, m.Overshoot)
	// Output:
	// N = 1583, 3180 steps, overshoot 0
}
