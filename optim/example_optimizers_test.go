package optim_test

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Lion's first update is −γ·sign(g): with one stage and one microbatch,
// every coordinate of a quadratic moves by exactly γ.
func ExampleOptimizer_lion() {
	data, _ := objectives.RandomQuadratic(40, 4, 1)
	f, _ := objectives.NewLeastSquares(data, 1, 10)
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 1, Microbatches: 1})
	opt := optim.Optimizer{Algorithm: optim.Lion}
	res, _ := optim.Run(f, optim.PipeDream{Timeline: sim.FromGrid(tab)}, optim.Settings{StepSize: 0.25, Optimizer: opt})
	fmt.Println(opt.Label())
	fmt.Println(res.X)
	// Output:
	// lion b1=0.9 b2=0.99 wd=0
	// [0.25 -0.25 0.25 0.25]
}

// Muon on a small character LM under 2BW with error feedback: the middle
// stages' QKV, output and MLP matrices are orthogonalised, the embeddings,
// head, biases and gains take AdamW. With E = 16 a GPT block lays out
// LN1 (2E), QKV (E×3E at 2E = 32, then its 3E biases), the output
// projection (E×E at 32 + 3E² + 3E = 848, its E biases), LN2 (2E), the
// MLP's E×4E at 848 + E² + E + 2E = 1152 and, after its 4E biases, its
// 4E×E at 1152 + 4E² + 4E = 2240 (docs/charlm.md).
func ExampleOptimizer_muon() {
	text, _ := charlm.MarkovCorpus(1, 20000)
	cfg := charlm.Config{Stages: 4, Embed: 16, Heads: 2, SeqLen: 16, Batch: 4, Seed: 1}
	lm, _ := charlm.New(cfg, text)
	for s := range cfg.Stages {
		fmt.Println("stage", s, "matrices:", lm.StageMatrices(s))
	}
	tab, _ := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 4, Microbatches: 60})
	opt := optim.Optimizer{Algorithm: optim.Muon}
	res, _ := optim.Run(lm, optim.ErrorFeedback{Timeline: sim.FromGrid(tab), Lambda: optim.DefaultEFLambda},
		optim.Settings{StepSize: 0.01, Optimizer: opt})
	first, last := res.Records[0], res.Records[len(res.Records)-1]
	fmt.Println(opt.Label())
	fmt.Println("validation loss fell:", last.ValidationLoss < first.ValidationLoss-0.5)
	// Output:
	// stage 0 matrices: []
	// stage 1 matrices: [{32 16 48 true} {848 16 16 true} {1152 16 64 true} {2240 64 16 true}]
	// stage 2 matrices: [{32 16 48 true} {848 16 16 true} {1152 16 64 true} {2240 64 16 true}]
	// stage 3 matrices: []
	// muon mu=0.95 b1=0.9 b2=0.999 eps=1e-08 wd=0
	// validation loss fell: true
}
