package cost

import (
	"fmt"
	"strings"
)

// Recompute is the activation recomputation of Korthikanti et al.
// (arXiv 2205.05198, §5): what a transformer layer's forward stores and
// what its backward runs again.
type Recompute uint8

// The recomputation policies.
const (
	// RecomputeNone stores every activation the backward needs.
	RecomputeNone Recompute = iota
	// RecomputeSelective stores all but the attention core's scores,
	// softmax and dropout (5at²b bytes), and runs the attention core's
	// forward (4t²bh FLOPs) again in the backward.
	RecomputeSelective
	// RecomputeFull stores only each layer's input (2tbh bytes) and runs
	// the whole forward again in the backward (Megatron-LM's
	// --activations-checkpoint-method uniform, one layer a checkpoint).
	RecomputeFull
)

var recomputeNames = [...]string{RecomputeNone: "none", RecomputeSelective: "selective", RecomputeFull: "full"}

func (r Recompute) String() string {
	if int(r) < len(recomputeNames) {
		return recomputeNames[r]
	}
	return fmt.Sprintf("Recompute(%d)", uint8(r))
}

// ParseRecompute reads none, selective or full.
func ParseRecompute(s string) (Recompute, error) {
	for i, n := range recomputeNames {
		if n == s {
			return Recompute(i), nil
		}
	}
	return 0, fmt.Errorf("unknown recomputation %q (known: %s)", s, strings.Join(recomputeNames[:], ", "))
}

// Parallelism is how Megatron-LM spreads each pipeline stage over GPUs
// (Narayanan et al., SC21, arXiv 2104.04473; Korthikanti et al., arXiv
// 2205.05198): Tensor GPUs of one node split every layer (column- then
// row-parallel linears), Data replicas of the whole pipeline split the
// batch. A pipeline of P stages then runs on Tensor × P × Data GPUs. The
// zero value is one GPU a stage, no recomputation: the pipeline-only model.
type Parallelism struct {
	// Tensor is the tensor-parallel degree T; 0 means 1. The T GPUs of
	// a stage sit on one node: T must not exceed the GPUs per node.
	Tensor int
	// Data is the data-parallel degree D; 0 means 1.
	Data int
	// SequenceParallel splits the layer norms and dropouts along the
	// sequence too: each all-reduce of tensor parallelism becomes a
	// reduce-scatter and an all-gather, and no activation is replicated.
	SequenceParallel bool
	Recompute        Recompute
	// DistributedOptimizer shards the fp32 master weights and Adam
	// moments over the D replicas (Megatron-LM's distributed optimizer,
	// ZeRO stage 1): the gradient all-reduce becomes a reduce-scatter of
	// the gradients and an all-gather of the updated weights.
	DistributedOptimizer bool
	// OverlapGradReduce hides the gradient reduction behind the last
	// microbatch's backward on each stage, as PyTorch's DDP does and
	// Megatron-LM's --overlap-grad-reduce; otherwise it runs after the
	// pipeline drains (Megatron-LM's local DDP of SC21).
	OverlapGradReduce bool
	// AsyncTensorAllReduce runs each transformer layer's backward
	// tensor-parallel collectives under its products, as Megatron-LM's
	// --async-tensor-model-parallel-allreduce does (Korthikanti et al.,
	// arXiv 2205.05198, §6.2: "we overlap all-reduce communication with the
	// linear weight's gradient computation"): the input gradient's
	// all-reduces under the weight-gradient products; with sequence
	// parallelism its reduce-scatters under the weight-gradient products
	// and the all-gathers of the inputs under the input-gradient products,
	// while the all-gathers of the outputs' gradients stay exposed
	// (tensorCollectives). Only a full backward, the input and the weight
	// gradients together, hides them, each up to the products' time; a
	// split one (I, then W later) cannot, and a recomputed forward's
	// collectives stay exposed. GPUModel.Compute applies it; GPUModel.Stage
	// reports the times without it.
	AsyncTensorAllReduce bool
	// ElementwisePasses prices the memory-bound work beside the matrix
	// products (layer norms, GELU, dropout, softmax, residual adds): each
	// forward and each backward of a layer moves ElementwisePasses times
	// the layer's activation bytes through the GPU's memory at its
	// MemoryBandwidth. Zero leaves it out (FLOPs at one efficiency only).
	ElementwisePasses float64
}

// tensor and data return T and D, at least 1.
func (p Parallelism) tensor() int { return max(p.Tensor, 1) }
func (p Parallelism) data() int   { return max(p.Data, 1) }

// Check refuses degrees a cluster of nodes of gpusPerNode GPUs (0: no
// nodes) cannot run, naming the degree.
func (p Parallelism) Check(gpusPerNode int) error {
	switch {
	case p.Tensor < 0 || p.Data < 0:
		return fmt.Errorf("cost: tensor-parallel %d and data-parallel %d must not be negative", p.Tensor, p.Data)
	case p.Recompute > RecomputeFull:
		return fmt.Errorf("cost: unknown recomputation %d", p.Recompute)
	case p.ElementwisePasses < 0:
		return fmt.Errorf("cost: elementwise passes %g must not be negative", p.ElementwisePasses)
	case gpusPerNode > 0 && p.tensor() > gpusPerNode:
		return fmt.Errorf("cost: tensor-parallel %d is more than the %d GPUs of a node; tensor parallelism stays inside a node", p.tensor(), gpusPerNode)
	case gpusPerNode > 0 && gpusPerNode%p.tensor() != 0:
		return fmt.Errorf("cost: tensor-parallel %d does not divide the %d GPUs of a node", p.tensor(), gpusPerNode)
	}
	return nil
}

// isTransformer reports whether a layer kind is split the Megatron way
// (attention heads and MLP columns over the T GPUs).
func isTransformer(k LayerKind) bool { return k == Decoder || k == MoE || k == VisionEncoder }

// tensorCollectives returns the time of one layer's tensor-parallel
// communication in the forward (fwd) and in the input-gradient backward
// (bwd), on the link inside a node, and what of bwd a full backward can
// run under its products (hideable, see Parallelism.AsyncTensorAllReduce).
// A transformer layer all-reduces its output (t·b·h elements) after the
// attention's row-parallel projection and after the MLP's, in the
// forward, and the gradients of its input twice in the backward, both
// under the weight-gradient products (Shoeybi et al., arXiv 1909.08053,
// Fig. 3). With sequence parallelism (Korthikanti et al. §4.2.2) the
// forward's two all-reduces become two all-gathers of the column-parallel
// linears' inputs and two reduce-scatters of the row-parallel ones'
// outputs, the same time on a ring (each half of an all-reduce); the
// backward all-gathers the row-parallel outputs' gradients, reduce-scatters
// the column-parallel inputs' gradients and all-gathers those inputs again
// for the weight gradients, as Megatron-LM keeps them split: three
// all-reduces' worth, of which the reduce-scatters run under the
// weight-gradient products and the inputs' all-gathers under the
// input-gradient products, while the gradients' all-gathers are waited
// for (megatron/core/tensor_parallel: LinearWithGradAccumulationAndAsync-
// Communication and _ReduceScatterToSequenceParallelRegion's backward).
// Megatron-LM's vocabulary-parallel embedding all-reduces its output once
// in the forward; the head's vocabulary-parallel loss moves t·b numbers,
// left out.
func (c GPUConfig) tensorCollectives(l Layer) (fwd, bwd float64, hideable hiddenComm) {
	t := c.Parallel.tensor()
	if t < 2 {
		return 0, 0, hiddenComm{}
	}
	ar := RingAllReduce(l.Output, t, c.Link)
	switch {
	case isTransformer(l.Kind) && c.Parallel.SequenceParallel:
		return 2 * ar, 3 * ar, hiddenComm{underWeight: ar, underInput: ar}
	case isTransformer(l.Kind):
		return 2 * ar, 2 * ar, hiddenComm{underWeight: 2 * ar}
	case l.Kind == Embedding:
		return ar, 0, hiddenComm{}
	}
	return 0, 0, hiddenComm{}
}

// hiddenComm is the backward communication of a layer that its products
// can hide: under the weight-gradient products and under the
// input-gradient products.
type hiddenComm struct{ underWeight, underInput float64 }

// replicatedActivation is what a transformer layer keeps in full on every
// tensor-parallel GPU without sequence parallelism: the two layer norms'
// inputs and outputs and the two dropout masks, 10tbh bytes (Korthikanti
// et al. §4.2.1: the 10 of sbh(10 + 24/t + 5as/(ht))), five times the
// layer's bf16 output.
func replicatedActivation(l Layer) float64 { return 5 * l.Output }

// shardedLayer is one layer as one of its T tensor-parallel GPUs holds
// and runs it, FLOPs and bytes per GPU, before recomputation: the
// transformer, embedding and head layers are split T ways (Megatron-LM
// splits the vocabulary of both); the replicated part of a transformer
// layer's activation stays whole without sequence parallelism. M_W is
// split T ways whole, an approximation: without sequence parallelism the
// inputs of the QKV and MLP-up projections (4tbh bytes) are in fact
// replicated. The layer norms' and biases' parameters, replicated in
// Megatron-LM, are split with the rest (under 0.1% of a layer's).
func (c GPUConfig) shardedLayer(l Layer) Layer {
	t := float64(c.Parallel.tensor())
	if t == 1 {
		return l
	}
	s := l
	s.Forward, s.BackwardInput, s.BackwardWeight, s.Attention = l.Forward/t, l.BackwardInput/t, l.BackwardWeight/t, l.Attention/t
	s.Params, s.Scores, s.WeightGrad = l.Params/t, l.Scores/t, l.WeightGrad/t
	s.RoutedParams = l.RoutedParams / t
	s.Activation = l.Activation / t
	if isTransformer(l.Kind) && !c.Parallel.SequenceParallel {
		rep := replicatedActivation(l)
		s.Activation = rep + (l.Activation-rep)/t
	}
	if c.Parallel.SequenceParallel {
		s.Output = l.Output / t
	}
	return s
}

// storedActivation is what a transformer layer's forward keeps on one GPU
// under the recomputation policy, from its sharded layer s: everything
// (none), all but the attention core's scores (selective), or the layer's
// input, 2tbh bytes, split T ways with sequence parallelism (full;
// Korthikanti et al. Table 2). M_W under full recomputation is the
// recomputed forward's, at most what the layer keeps.
func (c GPUConfig) storedActivation(s Layer) (activation, weightGrad float64) {
	switch c.Parallel.Recompute {
	case RecomputeSelective:
		return s.Activation - s.Scores, min(s.WeightGrad, s.Activation-s.Scores)
	case RecomputeFull:
		return s.Output, min(s.WeightGrad, s.Output)
	}
	return s.Activation, s.WeightGrad
}

// RingAllGather returns how long a ring all-gather of the given bytes
// (the gathered whole) among n ranks takes over link, as a reduce-scatter
// does: (n-1)/n · bytes/BW + (n-1)·α, half a ring all-reduce
// (RingAllReduce).
func RingAllGather(bytes float64, n int, link Link) float64 {
	return RingAllReduce(bytes, n, link) / 2
}
