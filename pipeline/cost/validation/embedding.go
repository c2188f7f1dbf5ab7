package validation

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// megatronStepTail is what an iteration of table t, a schedule of the given
// family, adds after the pipeline under Megatron-LM: each rank's gradient
// reduction and optimizer step (cost.GPUModel.RankStepTails), and, in
// Megatron-LM's own 1F1B and interleaved 1F1B, the all-reduce of a tied
// embedding's gradient between the first stage, which holds the embedding,
// and the last, which holds its copy for the head
// (_allreduce_word_embedding_grads in finalize_model_grads, after the
// pipeline and before the optimizer step, on the two ranks' links): a ring
// of two over vocabulary × hidden / T gradients of
// cost.GradientBytesPerParam. The Zero Bubble schedules' runtime starts it
// asynchronously under the last weight gradients (WeightGradStore.clear),
// so it adds nothing there. The slowest rank sets the tail.
func megatronStepTail(g *cost.GPUModel, t *pipeline.Table, family string) float64 {
	tails := g.RankStepTails(t)
	first, last := t.Rank(0), t.Rank(t.Stages()-1)
	if (family == "1f1b" || family == "interleaved-1f1b") && first != last {
		c := g.Config()
		for _, b := range c.Network.Blocks {
			if b.Kind != cost.Head || !b.Tied {
				continue
			}
			tensor := max(c.Parallel.Tensor, 1)
			bytes := float64(b.Vocab) * float64(b.Hidden) / float64(tensor) * cost.GradientBytesPerParam
			d := cost.RingAllReduce(bytes, 2, c.LinkBetween(first, last))
			tails[first] += d
			tails[last] += d
		}
	}
	worst := 0.0
	for _, x := range tails {
		worst = max(worst, x)
	}
	return worst
}
