package cost

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
)

// DefaultEfficiency is the share of the peak a training step achieves when
// a GPUConfig leaves Efficiency zero: Megatron-LM reaches 52% of the A100's
// bf16 peak (163 of 312 TFLOP/s per GPU, Narayanan et al., SC21,
// arXiv 2104.04473).
const DefaultEfficiency = 0.5

// Bytes per parameter of mixed-precision Adam, after ZeRO (Rajbhandari et
// al., arXiv 1910.02054, §3.1): bf16 weights and gradients, and fp32
// master weights, momentum and variance; 16 in all.
const (
	WeightBytesPerParam    = 2
	GradientBytesPerParam  = 2
	OptimizerBytesPerParam = 12
)

// GPUConfig is what a GPU timing model is built from: a model, the GPU
// every rank has, the links between ranks, and the microbatch (b samples of
// s tokens).
type GPUConfig struct {
	Network Network
	GPU     GPU
	// Link joins every two ranks, or, with RanksPerNode set, two ranks of
	// one node.
	Link Link
	// RanksPerNode, when positive, groups the ranks into nodes (rank r on
	// node r / RanksPerNode), and InterNode joins ranks of different nodes.
	RanksPerNode int
	InterNode    Link
	Microbatch   int
	Sequence     int
	// Efficiency is the achieved share of the GPU's peak, in (0, 1]; zero
	// means DefaultEfficiency.
	Efficiency float64
	// FlashAttention prices the transformer layers as FlashAttention runs
	// them (Network.LayersFlash): no stored attention scores, a recomputation
	// in the backward.
	FlashAttention bool
	// ExpertParallel spreads the routed experts of MoE layers over a group
	// of GPUs and prices their all-to-alls (moe.go); zero means none.
	ExpertParallel ExpertParallel
	// ActionGap is the time, in seconds, the training runtime spends
	// between two compute actions of a rank that the GPU does not
	// overlap, such as the host's scheduling and the next kernels'
	// launches where the runtime synchronises the device after each
	// transfer. Compute adds it to every action; Stage gives the kernels'
	// times without it. Zero leaves it out; docs/validation.md measures
	// about 1 ms an action for the runtimes of the Zero Bubble paper's
	// runs on A100s.
	ActionGap float64
	// Parallel is the tensor and data parallelism around each stage and
	// the activation recomputation (parallel.go). With it, Link is the
	// link inside a node, which tensor parallelism uses, and RanksPerNode
	// counts GPUs: a node holds RanksPerNode / (T·D) pipeline ranks.
	Parallel Parallelism
}

// Throughput returns the achieved FLOP/s: peak × efficiency.
func (c GPUConfig) Throughput() float64 {
	eff := c.Efficiency
	if eff == 0 {
		eff = DefaultEfficiency
	}
	return c.GPU.PeakFLOPS * eff
}

// Layers returns the per-layer costs of the model at the configured
// microbatch.
func (c GPUConfig) Layers() ([]Layer, error) {
	if c.Efficiency < 0 || c.Efficiency > 1 {
		return nil, fmt.Errorf("cost: efficiency %g is outside (0, 1]", c.Efficiency)
	}
	if c.GPU.PeakFLOPS <= 0 {
		return nil, fmt.Errorf("cost: GPU %q has no positive peak FLOP/s", c.GPU.Name)
	}
	if !(c.ActionGap >= 0 && c.ActionGap < 1) {
		return nil, fmt.Errorf("cost: action gap %g s is outside [0, 1)", c.ActionGap)
	}
	if c.Link.Bandwidth <= 0 || c.Link.Latency < 0 {
		return nil, fmt.Errorf("cost: link %q needs a positive bandwidth and a non-negative latency", c.Link.Name)
	}
	if c.RanksPerNode < 0 || c.RanksPerNode > 0 && (c.InterNode.Bandwidth <= 0 || c.InterNode.Latency < 0) {
		return nil, fmt.Errorf("cost: %d ranks per node need an inter-node link with a positive bandwidth and a non-negative latency", c.RanksPerNode)
	}
	if err := c.ExpertParallel.Check(c.Network); err != nil {
		return nil, fmt.Errorf("cost: %w", err)
	}
	if err := c.Parallel.Check(c.RanksPerNode); err != nil {
		return nil, err
	}
	if c.Parallel.ElementwisePasses > 0 && c.GPU.MemoryBandwidth <= 0 {
		return nil, fmt.Errorf("cost: GPU %q has no memory bandwidth to price the element-wise passes with", c.GPU.Name)
	}
	return c.Network.layers(c.Microbatch, c.Sequence, c.FlashAttention)
}

// GPUModel is the communication-aware GPU timing model: it prices each
// stage's F, B (input gradient) and W on one GPU of the stage from the
// layers it holds (priceLayer: FLOPs at the achieved throughput,
// element-wise passes, tensor-parallel collectives, recomputation), each
// transfer as the link's latency plus the boundary activation's bytes over
// its bandwidth, each stage's memory, and what a step adds after the
// pipeline (StepTail, Iteration). It implements Model and
// WeightGradMemory; times are in seconds.
type GPUModel struct {
	config    GPUConfig
	partition []int
	stages    []gpuStage
}

// gpuStage sums the layers of one stage.
type gpuStage struct {
	forward, backwardInput, weight float64 // seconds
	// hidden is what a full backward saves on the input-gradient's
	// tensor-parallel collectives under Parallelism.AsyncTensorAllReduce.
	hidden                         float64
	params, activation, weightGrad float64
	output                         float64 // bytes sent to the next stage
	experts                        expertTimes
}

// NewGPUModel builds the timing model with the layers split over the
// stages as EvenPartition does.
func NewGPUModel(c GPUConfig, stages int) (*GPUModel, error) {
	layers, err := c.Layers()
	if err != nil {
		return nil, err
	}
	part, err := EvenPartition(layers, stages)
	if err != nil {
		return nil, err
	}
	return newGPUModel(c, layers, part)
}

// NewGPUModelPartition builds the timing model with partition[s] layers,
// in model order, on stage s.
func NewGPUModelPartition(c GPUConfig, partition []int) (*GPUModel, error) {
	layers, err := c.Layers()
	if err != nil {
		return nil, err
	}
	return newGPUModel(c, layers, partition)
}

func newGPUModel(c GPUConfig, layers []Layer, partition []int) (*GPUModel, error) {
	if err := CheckPartition(partition, len(layers)); err != nil {
		return nil, fmt.Errorf("cost: model %s: %w", c.Network.Name, err)
	}
	g := &GPUModel{config: c, partition: append([]int(nil), partition...), stages: make([]gpuStage, len(partition))}
	next := 0
	for s, n := range partition {
		st := &g.stages[s]
		for _, l := range layers[next : next+n] {
			p := c.priceLayer(l)
			st.forward += p.forward
			st.backwardInput += p.backwardInput
			st.weight += p.weight
			st.hidden += p.hidden
			st.params += p.params
			st.activation += p.activation
			st.weightGrad += p.weightGrad
			st.experts.forward += p.experts.forward
			st.experts.backward += p.experts.backward
			st.output = l.Output
		}
		next += n
	}
	return g, nil
}

// priceLayer is what one layer costs one GPU of its stage, per
// microbatch: the FLOPs of its tensor-parallel shard at the achieved
// throughput, the element-wise passes over its activation at the memory
// bandwidth (Parallelism.ElementwisePasses), the tensor-parallel
// collectives, the recomputation in the backward, the expert-parallel
// all-to-alls of an MoE layer (moe.go), and the parameters and activations
// the GPU holds. Every per-layer price of the GPU model goes through it.
func (c GPUConfig) priceLayer(l Layer) gpuStage {
	s := c.shardedLayer(l)
	rate := c.Throughput()
	elementwise := func(bytes float64) float64 {
		if c.Parallel.ElementwisePasses == 0 {
			return 0
		}
		return c.Parallel.ElementwisePasses * bytes / c.GPU.MemoryBandwidth
	}
	fwdComm, bwdComm, hideable := c.tensorCollectives(l)
	p := gpuStage{
		forward:       s.Forward/rate + elementwise(s.Activation) + fwdComm,
		backwardInput: s.BackwardInput/rate + elementwise(s.Activation) + bwdComm,
		weight:        s.BackwardWeight / rate,
		params:        s.Params - c.ExpertParallel.notHeld(s.RoutedParams),
		activation:    s.Activation,
		weightGrad:    s.WeightGrad,
	}
	p.addExperts(c.ExpertParallel, l)
	if !isTransformer(l.Kind) {
		return p
	}
	if c.Parallel.AsyncTensorAllReduce {
		p.hidden = min(hideable.underWeight, p.weight) + min(hideable.underInput, s.BackwardInput/rate)
	}
	switch c.Parallel.Recompute {
	case RecomputeFull:
		p.backwardInput += p.forward
	case RecomputeSelective:
		p.backwardInput += s.Attention/rate + elementwise(s.Scores)
	}
	p.activation, p.weightGrad = c.storedActivation(s)
	return p
}

// CheckPartition checks that partition gives every stage at least one
// layer and covers exactly the model's layers.
func CheckPartition(partition []int, layers int) error {
	if len(partition) == 0 {
		return fmt.Errorf("partition has no stages")
	}
	sum := 0
	for s, n := range partition {
		if n < 1 {
			return fmt.Errorf("partition gives stage %d %d layers; every stage needs at least one", s, n)
		}
		sum += n
	}
	if sum != layers {
		return fmt.Errorf("partition %v covers %d layers; the model has %d", partition, sum, layers)
	}
	return nil
}

// EvenPartition is the Megatron-LM split: the leading embedding layers go
// with stage 0, a trailing head with the last stage, and the layers
// between them are shared out by count, the first stages taking one more
// when the count does not divide. It ignores what the layers cost.
func EvenPartition(layers []Layer, stages int) ([]int, error) {
	lead := 0
	for lead < len(layers) && layers[lead].Kind == Embedding {
		lead++
	}
	trail := 0
	for trail < len(layers)-lead && layers[len(layers)-1-trail].Kind == Head {
		trail++
	}
	body := len(layers) - lead - trail
	if stages < 1 || body < stages {
		return nil, fmt.Errorf("cost: cannot split %d layers (besides embedding and head) over %d stages", body, stages)
	}
	part := make([]int, stages)
	for s := range part {
		part[s] = body / stages
		if s < body%stages {
			part[s]++
		}
	}
	part[0] += lead
	part[stages-1] += trail
	return part, nil
}

// Stages returns the number of stages the model was split into.
func (g *GPUModel) Stages() int { return len(g.stages) }

// Partition returns the number of layers on each stage.
func (g *GPUModel) Partition() []int { return append([]int(nil), g.partition...) }

// Config returns the configuration the model was built from.
func (g *GPUModel) Config() GPUConfig { return g.config }

// Stage returns the F, B (input gradient) and W times of stage s, in
// seconds.
// A stage the model does not have gives NaN times.
func (g *GPUModel) Stage(s int) Stage {
	if s < 0 || s >= len(g.stages) {
		return Stage{TF: math.NaN(), TB: math.NaN(), TW: math.NaN()}
	}
	st := g.stages[s]
	return Stage{TF: st.forward, TB: st.backwardInput, TW: st.weight}
}

// Compute returns the time of a compute action in seconds: a full B is the
// input- plus the weight-gradient time (less the tensor-parallel
// collectives it hides under Parallelism.AsyncTensorAllReduce), an
// OVERLAP_F_B its forward plus its backward, less the expert-parallel
// all-to-alls the pair hides
// (overlapped, moe.go). Every action, an OVERLAP_F_B pair counting as
// one, takes the runtime's GPUConfig.ActionGap more. A stage the model does not have
// gives NaN, so that a table that does not fit the model shows in every
// time derived from it.
func (g *GPUModel) Compute(a pipeline.Action) float64 {
	if a.Kind == pipeline.OverlapFB {
		return g.overlapped(a) - g.hidden(a.BackStage) + g.config.ActionGap
	}
	t := stageComputeTime(a, g.Stage)
	if a.Kind == pipeline.Backward {
		t -= g.hidden(a.Stage)
	}
	return t + g.config.ActionGap
}

// hidden is the tensor-parallel backward communication stage s's full
// backward hides under its weight gradients (Parallelism.AsyncTensorAllReduce),
// 0 for a stage the model does not have.
func (g *GPUModel) hidden(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return 0
	}
	return g.stages[s].hidden
}

// Transfer returns the point-to-point time (Link.PointToPoint) of the
// message a sends between two ranks over the link that joins them
// (LinkBetween), 0 on one rank. Forward messages (SEND_F, RECV_F, or
// the forward itself when the table has no explicit comms) carry the
// activation at the boundary after the sending stage, backward ones (SEND_B,
// RECV_B, B, I) the gradient at the boundary before it: s·b·h elements of
// BytesPerElement.
func (g *GPUModel) Transfer(a pipeline.Action, from, to int) float64 {
	if from == to {
		return 0
	}
	l := g.config.LinkBetween(from, to)
	bytes := g.MessageBytes(a)
	t := g.config.Parallel.tensor()
	if t == 1 {
		return l.PointToPoint(bytes)
	}
	// Megatron-LM's scatter-gather (SC21 §4.1): each of the T GPUs of
	// the stage sends its 1/T of the message over its own link, and the
	// receiving node all-gathers it; with sequence parallelism the next
	// stage takes the activation split, so nothing is gathered.
	d := l.PointToPoint(bytes / float64(t))
	if !g.config.Parallel.SequenceParallel {
		d += RingAllGather(bytes, t, g.config.Link)
	}
	return d
}

// LinkBetween returns the link that joins pipeline ranks from and to:
// InterNode when they sit on different nodes, Link otherwise. A node holds
// RanksPerNode / (T·D) pipeline ranks under tensor and data parallelism
// (Megatron-LM orders GPUs tensor first, then data, then pipeline), and
// at least one.
func (c GPUConfig) LinkBetween(from, to int) Link {
	if n := c.pipelineRanksPerNode(); n > 0 && from/n != to/n {
		return c.InterNode
	}
	return c.Link
}

// pipelineRanksPerNode is how many pipeline ranks share a node, 0 without
// nodes.
func (c GPUConfig) pipelineRanksPerNode() int {
	if c.RanksPerNode <= 0 {
		return 0
	}
	return max(1, c.RanksPerNode/(c.Parallel.tensor()*c.Parallel.data()))
}

// MessageBytes returns the bytes of the message a carries. PyTorch names
// RECV_F by the receiving stage and RECV_B likewise, so both are mapped to
// the boundary they cross.
func (g *GPUModel) MessageBytes(a pipeline.Action) float64 {
	b, ok := boundary(a)
	if !ok || b >= len(g.stages)-1 {
		return 0
	}
	return g.stages[b].output
}

// boundary returns b when the message a carries crosses from stage b to
// b+1: forward messages (SEND_F, or the forward itself when the table has
// no explicit comms) leave the sending stage, backward ones (SEND_B, B, I)
// arrive at the stage before it, and PyTorch names RECV_F and RECV_B by the
// receiving stage.
func boundary(a pipeline.Action) (int, bool) {
	var b int
	switch a.Kind {
	case pipeline.SendF, pipeline.Forward, pipeline.RecvB:
		b = a.Stage
	case pipeline.RecvF, pipeline.SendB, pipeline.Backward, pipeline.BackwardInput:
		b = a.Stage - 1
	default:
		return 0, false
	}
	return b, b >= 0
}

// ActivationBytes returns what one microbatch's forward on stage s keeps
// until its backward: the sum over the stage's layers (NaN for a stage the
// model does not have).
func (g *GPUModel) ActivationBytes(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return math.NaN()
	}
	return g.stages[s].activation
}

// WeightGradBytes returns M_W of stage s: what one microbatch's activation
// on the stage shrinks to between a split backward's I and its W, the sum
// of Layer.WeightGrad over the stage's layers (NaN for a stage the model
// does not have). GPUModel is a WeightGradMemory.
func (g *GPUModel) WeightGradBytes(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return math.NaN()
	}
	return g.stages[s].weightGrad
}

// StaticBytes returns what one GPU of stage s holds for the whole run:
// its parameters (its tensor-parallel shard) × (WeightBytesPerParam +
// GradientBytesPerParam + OptimizerBytesPerParam), the Adam state split
// over the D replicas with the distributed optimizer (NaN for a stage the
// model does not have).
func (g *GPUModel) StaticBytes(s int) float64 {
	opt := float64(OptimizerBytesPerParam)
	if p := g.config.Parallel; p.DistributedOptimizer {
		opt /= float64(p.data())
	}
	return g.Params(s) * (WeightBytesPerParam + GradientBytesPerParam + opt)
}

// Params returns the parameters held by stage s (NaN for a stage the model
// does not have).
func (g *GPUModel) Params(s int) float64 {
	if s < 0 || s >= len(g.stages) {
		return math.NaN()
	}
	return g.stages[s].params
}
