package optim_test

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Adam on every stage, replayed as PipeDream and as PipeDream-2BW with
// groups of four microbatches: 2BW updates each stage once per group.
func ExampleOptimizer() {
	data, _ := objectives.RandomQuadratic(400, 64, 1)
	f, _ := objectives.NewLeastSquares(data, 4, 20)
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 100})
	tl := sim.FromGrid(tab)
	set := optim.Settings{StepSize: 1.0 / 256, Seed: 1, Optimizer: optim.Optimizer{Algorithm: optim.Adam}, TargetLoss: 1}

	for _, m := range []optim.Method{optim.PipeDream{Timeline: tl}, optim.TwoBW{Timeline: tl, Accumulate: 4}} {
		res, err := optim.Run(f, m, set)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s with %s: %d block updates, loss decreased: %v\n", res.Method, set.Optimizer.Label(), res.BlockUpdates, res.FinalLoss < res.Records[0].Loss)
	}
	// Output:
	// pipedream with adam b1=0.9 b2=0.999 eps=1e-08: 400 block updates, loss decreased: true
	// 2bw with adam b1=0.9 b2=0.999 eps=1e-08: 100 block updates, loss decreased: true
}

// The versions 2BW's forwards read on the unit-time PipeDream timeline
// with groups of S = 4 microbatches: never more than one behind, two held
// at once, and the last stage always reads the newest.
func ExampleVersionAges() {
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	v, _ := optim.VersionAges(sim.FromGrid(tab), 4)
	for s, ages := range v.Ages {
		most := 0
		for _, a := range ages {
			most = max(most, a)
		}
		fmt.Printf("stage %d: oldest read %d behind, %d versions held\n", s, most, v.Kept[s])
	}
	// Output:
	// stage 0: oldest read 1 behind, 2 versions held
	// stage 1: oldest read 1 behind, 2 versions held
	// stage 2: oldest read 1 behind, 2 versions held
	// stage 3: oldest read 0 behind, 1 versions held
}
