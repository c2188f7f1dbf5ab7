package optim

import (
	"fmt"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
)

// BenchmarkTrainCharLMWorkers replays 128 updates of sync with Adam, one
// microbatch each as pipelab train's LM default takes them, at train's
// shape (E 64, T 32, batch 16, S = 4, the shipped text), with charlm's
// Workers = 1 and 2; each run records twice (Loss over 8 batches,
// ValidationLoss over 8 windows), about the share of the forward passes
// the default run spends on its records. The ns/op ratio in one run is
// the wall-clock speed-up on this machine's two cores.
func BenchmarkTrainCharLMWorkers(b *testing.B) {
	text := charlm.TinyShakespeare()
	flush := generate(b, "1f1b", pipeline.Shape{Ranks: 4, Microbatches: 1})
	set := Settings{StepSize: 0.0035, LogEvery: 128, Optimizer: Optimizer{Algorithm: Adam, Beta2: 0.99}}
	for _, workers := range []int{1, 2} {
		cfg := charlm.DefaultConfig()
		cfg.ValidationBatches, cfg.Workers = 8, workers
		lm, err := charlm.New(cfg, text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				mustRun(b, lm, Sync{Timeline: flush, Iterations: 128}, set)
			}
		})
	}
}
