package optim_test

import (
	"fmt"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// RPD's two delay models measured on PipeDream's timeline, S = 4: uniform
// delays at PipeDream's steady-state mean 7.55 (bounds 15 and 16 mixed so
// that the mean is 7.55 exactly), and PipeDream's delays replayed stage by
// stage, whose bound is the largest delay of the table (16, in the
// warm-up).
func ExampleUniformAtMean() {
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	tl := sim.FromGrid(tab)
	p, _ := optim.StageDelays(tl, optim.Steady)
	mean := optim.UniformAtMean{Stages: 4, Mean: p.Total.Mean, Microbatches: 40}
	dt, _ := optim.Delays(tl)
	trace, _ := optim.NewStageTrace(dt)
	fmt.Printf("mean %.2f: bound %d, %d iterations\n", p.Total.Mean, mean.Bound(), mean.Len())
	fmt.Printf("stage trace: bound %d, %d iterations\n", trace.Bound(), trace.Len())
	// Output:
	// mean 7.55: bound 16, 160 iterations
	// stage trace: bound 16, 160 iterations
}

// 2BW's per-stage delays with groups of S = 4 microbatches, against
// PipeDream's on the same grid, in block updates of the whole pipeline.
func ExampleTwoBWStageDelays() {
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	tl := sim.FromGrid(tab)
	two, _ := optim.TwoBWStageDelays(tl, 4, optim.Steady)
	pd, _ := optim.StageDelays(tl, optim.Steady)
	for s := range two {
		fmt.Printf("stage %d: 2bw max %d mean %.2f, pipedream max %d mean %.2f\n", s, two[s].Max, two[s].Mean, pd.PerStage[s].Max, pd.PerStage[s].Mean)
	}
	// Output:
	// stage 0: 2bw max 7 mean 5.50, pipedream max 14 mean 13.95
	// stage 1: 2bw max 6 mean 3.75, pipedream max 9 mean 9.00
	// stage 2: 2bw max 5 mean 2.25, pipedream max 6 mean 6.00
	// stage 3: 2bw max 2 mean 0.50, pipedream max 1 mean 1.00
}
