package cost

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
)

// ExpertParallel spreads the routed experts of every MoE layer over Degree
// GPUs (expert parallelism, EP): each GPU of the group holds Experts/Degree
// of them and runs its own microbatches, and every MoE layer moves its
// tokens to the GPUs of the experts they visit and back, an all-to-all
// dispatch before the experts and an all-to-all combine after them, in the
// forward and again in the input-gradient backward (GShard, arXiv
// 2006.16668; DeepSeek-V3, arXiv 2412.19437 §3.2). The weight-gradient
// backward moves nothing. The zero value, and Degree 1, is no expert
// parallelism.
type ExpertParallel struct {
	// Degree is the GPUs of one expert-parallel group.
	Degree int
	// GPUsPerNode is the GPUs of one node; a group of at most that many
	// GPUs sits in one node, a larger one spans Degree/GPUsPerNode nodes.
	GPUsPerNode int
	// IntraNode joins two GPUs of one node, InterNode two nodes (a GPU's
	// share of its node's network).
	IntraNode, InterNode Link
}

// on reports whether the experts are spread over more than one GPU.
func (e ExpertParallel) on() bool { return e.Degree > 1 }

// Check checks the group against itself and against the network: a
// degree of at least 0, a node size and links when it is above 1, and
// every MoE layer's routed experts split evenly over the group's GPUs.
func (e ExpertParallel) Check(net Network) error {
	if e.on() {
		for i, blk := range net.Blocks {
			if blk.Kind == MoE && blk.Experts%e.Degree != 0 {
				return fmt.Errorf("expert-parallel degree %d does not divide the %d routed experts of block %d of %s", e.Degree, blk.Experts, i, net.Name)
			}
		}
	}
	switch {
	case e.Degree < 0:
		return fmt.Errorf("expert-parallel degree %d must not be negative", e.Degree)
	case !e.on():
		return nil
	case e.GPUsPerNode < 1:
		return fmt.Errorf("expert parallelism over %d GPUs needs the GPUs per node, got %d", e.Degree, e.GPUsPerNode)
	case e.IntraNode.Bandwidth <= 0 || e.IntraNode.Latency < 0:
		return fmt.Errorf("expert parallelism needs an intra-node link with a positive bandwidth and a non-negative latency")
	case e.Degree > e.GPUsPerNode && (e.InterNode.Bandwidth <= 0 || e.InterNode.Latency < 0):
		return fmt.Errorf("expert parallelism over %d GPUs spans nodes of %d and needs an inter-node link with a positive bandwidth and a non-negative latency", e.Degree, e.GPUsPerNode)
	}
	return nil
}

// AllToAllTime is the time of one all-to-all in which each GPU of the group
// hands out bytes, spread evenly over the group's Degree GPUs (balanced
// routing): the 1/Degree it keeps moves nothing, the share for the other
// GPUs of its node crosses IntraNode, the share for other nodes InterNode,
// both at once, and the slower of the two, plus its link's latency, is the
// time. Without expert parallelism it is zero.
func (e ExpertParallel) AllToAllTime(bytes float64) float64 {
	if !e.on() || bytes == 0 {
		return 0
	}
	d := float64(e.Degree)
	local := float64(min(e.Degree, e.GPUsPerNode))
	t := e.IntraNode.Latency + bytes*(local-1)/d/e.IntraNode.Bandwidth
	if remote := d - local; remote > 0 {
		t = max(t, e.InterNode.Latency+bytes*remote/d/e.InterNode.Bandwidth)
	}
	return t
}

// notHeld is the part of a layer's routed-expert parameters a GPU does not
// hold when Degree GPUs share them.
func (e ExpertParallel) notHeld(routed float64) float64 {
	if !e.on() {
		return 0
	}
	return routed * (1 - 1/float64(e.Degree))
}

// moeLayer adds to an MoE layer's cost what expert parallelism needs: the
// bytes one all-to-all moves (each of the t·b tokens' hidden vectors to
// each of the Active routed experts it visits, bf16; the shared experts
// stay on the GPU) and the routed experts' parameters, which the GPUs of a
// group share.
func (blk Block) moeLayer(l *Layer, b, t float64) {
	if blk.Kind != MoE {
		return
	}
	l.AllToAll = t * b * float64(blk.Active) * float64(blk.Hidden) * BytesPerElement
	l.RoutedParams = float64(blk.Experts) * blk.mlpParams()
}

// ActiveParams returns the parameters one token runs through: every layer's
// but, in an MoE layer, only the Active routed experts it visits (with the
// shared experts and the router), and a tied head's matrix once. The
// published "activated" counts (DeepSeek-V3's 37B, Qwen3-30B-A3B's 3.3B)
// count the embedding and the head too, as this does.
func (m Network) ActiveParams() float64 {
	p := m.Params()
	for _, blk := range m.Blocks {
		if blk.Kind == MoE {
			p -= float64(blk.Count) * float64(blk.Experts-blk.Active) * blk.mlpParams()
		}
	}
	return p
}

// expertTimes is what an overlapped pair needs of a stage: the seconds of
// its forward's and its input-gradient backward's all-to-alls, which the
// stage's forward and backward times include.
type expertTimes struct{ forward, backward float64 }

// addExperts prices a layer's all-to-alls on stage st: a dispatch and a
// combine in the forward and two more in the input-gradient backward.
func (st *gpuStage) addExperts(e ExpertParallel, l Layer) {
	a2a := 2 * e.AllToAllTime(l.AllToAll)
	st.forward += a2a
	st.backwardInput += a2a
	st.experts.forward += a2a
	st.experts.backward += a2a
}

// overlapped is the time of an OVERLAP_F_B under the GPU model: the
// forward of one microbatch and the full backward of another, each with
// its all-to-alls, on two streams, communication on one and computation
// on the other, as DualPipe and Megatron-LM's combined 1F1B run them. The
// all-to-alls of either half hide behind the computation of the other, so
// the pair takes the longer of the two streams: max(compute, all-to-all),
// the bound DualPipe's "full overlap" reaches (arXiv 2412.19437 §3.2).
// Without expert parallelism it is the forward plus the backward.
func (g *GPUModel) overlapped(a pipeline.Action) float64 {
	f, b := g.Stage(a.Stage), g.Stage(a.BackStage)
	total := f.TF + b.TB + b.TW
	if a.Stage < 0 || a.Stage >= len(g.stages) || a.BackStage < 0 || a.BackStage >= len(g.stages) {
		return total
	}
	comm := g.stages[a.Stage].experts.forward + g.stages[a.BackStage].experts.backward
	return max(total-comm, comm)
}

// ExpertParallelOn returns the expert parallelism of a group of degree
// GPUs in nodes of 8 joined by NVLink, the nodes by InfiniBand NDR (the
// nvlink and ib-ndr link presets): a DGX H100's node, laid out as
// DeepSeek-V3's cluster is (arXiv 2412.19437 §3.1: 8 GPUs a node, NVLink
// inside, InfiniBand between; its H800s' NVLink is slower than the
// preset's). Degree 0 or 1 is none.
func ExpertParallelOn(degree int) ExpertParallel {
	if degree <= 1 {
		return ExpertParallel{Degree: degree}
	}
	intra, _ := LookupLink("nvlink")
	inter, _ := LookupLink("ib-ndr")
	return ExpertParallel{Degree: degree, GPUsPerNode: 8, IntraNode: intra, InterNode: inter}
}
