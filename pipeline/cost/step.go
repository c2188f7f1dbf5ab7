package cost

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
)

// AdamBytesPerParam is the memory traffic of one mixed-precision Adam step
// per parameter: it reads the fp32 master weight, both moments and the
// fp32 gradient (16 bytes), reads the gradient once more for the norm of
// gradient clipping (4), and writes the master weight and both moments
// (12) and the bf16 weight (2): 34 bytes, a memory-bound pass.
const AdamBytesPerParam = 34

// GradientSync returns how long stage s's data-parallel gradient
// reduction takes on one GPU: a ring all-reduce of the bf16 gradients of
// its tensor-parallel shard among the D replicas (RingAllReduce), or with
// the distributed optimizer a reduce-scatter of the gradients and an
// all-gather of the weights, which a ring runs in the same time. The ring
// runs on the link between nodes when the D replicas of a GPU span nodes
// (T·D above the GPUs per node), else on the link inside one. One replica
// has nothing to reduce. A stage the model does not have gives NaN.
func (g *GPUModel) GradientSync(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return math.NaN()
	}
	c := g.config
	d := c.Parallel.data()
	link := c.Link
	if c.RanksPerNode > 0 && c.Parallel.tensor()*d > c.RanksPerNode {
		link = c.InterNode
	}
	return RingAllReduce(g.stages[s].params*GradientBytesPerParam, d, link)
}

// OptimizerStep returns how long stage s's Adam step takes on one GPU:
// AdamBytesPerParam per parameter it updates (its shard, and a 1/D share
// of that with the distributed optimizer) at the GPU's memory bandwidth;
// zero when the GPU has no memory bandwidth.
func (g *GPUModel) OptimizerStep(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return math.NaN()
	}
	c := g.config
	if c.GPU.MemoryBandwidth <= 0 {
		return 0
	}
	params := g.stages[s].params
	if c.Parallel.DistributedOptimizer {
		params /= float64(c.Parallel.data())
	}
	return params * AdamBytesPerParam / c.GPU.MemoryBandwidth
}

// StepTail returns what an iteration adds after the pipeline's last
// compute: the slowest rank's gradient reduction and optimizer step over
// the stages it holds on table t. With OverlapGradReduce each stage's
// reduction runs during its last microbatch's backward (T_B + T_W of the
// stage) and only the part that outlasts it shows; otherwise all of it
// runs after the drain (Megatron-LM's local DDP). Ranks are taken to
// drain together, which the first rank, holding the last backward, does
// in 1F1B: the tail is an upper bound for the other ranks. It is the
// largest of RankStepTails.
func (g *GPUModel) StepTail(t *pipeline.Table) float64 {
	worst := 0.0
	for _, x := range g.RankStepTails(t) {
		worst = max(worst, x)
	}
	return worst
}

// RankStepTails returns each rank's part of StepTail: the gradient
// reduction and optimizer step of the stages it holds on table t.
func (g *GPUModel) RankStepTails(t *pipeline.Table) []float64 {
	perRank := make([]float64, t.Ranks())
	for s := range min(t.Stages(), len(g.stages)) {
		sync := g.GradientSync(s)
		if g.config.Parallel.OverlapGradReduce {
			st := g.Stage(s)
			sync = max(0, sync-st.TB-st.TW)
		}
		perRank[t.Rank(s)] += sync + g.OptimizerStep(s)
	}
	return perRank
}

// IterationFLOPs returns the FLOPs of one iteration of the whole model
// over batch samples as Narayanan et al. (SC21, arXiv 2104.04473) count
// them in their equation 3, 96·B·s·l·h²·(1 + s/6h + V/16lh) for their GPT:
// every transformer layer's forward four times (the forward, the backward
// at twice the forward, and the forward again of full recomputation,
// whatever the recomputation actually run) and the head's three times.
// These are the FLOPs behind the paper's "achieved teraFLOP/s per GPU".
func (c GPUConfig) IterationFLOPs(batch int) (float64, error) {
	layers, err := c.Network.layers(1, c.Sequence, false)
	if err != nil {
		return 0, err
	}
	var perSample float64
	for _, l := range layers {
		switch {
		case isTransformer(l.Kind):
			perSample += 4 * l.Forward
		case l.Kind == Head:
			perSample += 3 * l.Forward
		}
	}
	return perSample * float64(batch), nil
}

// Iteration is one training step of a pipeline timed under the GPU model
// on all its GPUs.
type Iteration struct {
	// Seconds is the whole step: the pipeline's makespan, then the
	// gradient reduction and the optimizer step (StepTail); under
	// post-validation (PostValidatedIteration) the longest rank span plus
	// that rank's step.
	Seconds float64
	// GPUs is T × P × D: the pipeline's ranks, each T GPUs, D times.
	GPUs int
	// ModelFLOPsPerGPU is the achieved FLOP/s of one GPU as Narayanan et
	// al. count it (IterationFLOPs over the batch of all D replicas,
	// divided by Seconds and GPUs).
	ModelFLOPsPerGPU float64
}

// Iteration times one step of table t, whose pipeline finished after
// makespan seconds, on all the GPUs of the configuration: each of the D
// replicas runs t's microbatches of Microbatch samples.
func (g *GPUModel) Iteration(t *pipeline.Table, makespan float64) (Iteration, error) {
	return g.iteration(t, makespan+g.StepTail(t))
}

// PostValidatedIteration is Iteration under the Zero Bubble runtime's
// optimizer post-validation (Qi et al., arXiv 2401.10241, §4): each rank
// takes its optimizer step as soon as its own last compute of table t is
// done and goes on to the next iteration, validating the step (the global
// gradient norm, NaNs) afterwards instead of waiting for every rank. The
// ranks keep the offsets the schedule gives them, so iterations follow
// each other at the pace of the rank whose span (spans[r], its first
// compute start to its last compute end, sim.RankSpans) plus its own step
// tail (RankStepTails) is longest. Megatron-LM's schedules wait for the
// pipeline to drain instead: Iteration.
func (g *GPUModel) PostValidatedIteration(t *pipeline.Table, spans []float64) (Iteration, error) {
	tails := g.RankStepTails(t)
	if len(spans) != len(tails) {
		return Iteration{}, fmt.Errorf("cost: %d rank spans for a table of %d ranks", len(spans), len(tails))
	}
	worst := 0.0
	for r, span := range spans {
		worst = max(worst, span+tails[r])
	}
	return g.iteration(t, worst)
}

// iteration is the Iteration of table t that takes the given seconds.
func (g *GPUModel) iteration(t *pipeline.Table, seconds float64) (Iteration, error) {
	c := g.config
	it := Iteration{Seconds: seconds, GPUs: c.Parallel.tensor() * t.Ranks() * c.Parallel.data()}
	flops, err := c.IterationFLOPs(t.Microbatches * c.Microbatch * c.Parallel.data())
	if err != nil {
		return Iteration{}, err
	}
	if it.Seconds > 0 {
		it.ModelFLOPsPerGPU = flops / it.Seconds / float64(it.GPUs)
	}
	return it, nil
}
