package sim

import (
	"pipelab/pipeline"
)

// GradientSync is a cost model that also prices the all-reduce of a model
// part's weight gradients among the ranks that hold replicas of it, as in
// Chimera's two pipelines (arXiv 2107.06925, §3.4). A cost model without
// it makes that all-reduce free.
type GradientSync interface {
	// AllReduce returns how long all-reducing the weight gradients of
	// stage s among n replicas of its model part takes.
	AllReduce(s, n int) float64
}

// AllReduce prices a ring all-reduce of stage s's bf16 gradients among n
// ranks over the model's link (RingAllReduce).
func (g *GPUModel) AllReduce(s, n int) float64 {
	return RingAllReduce(g.Params(s)*GradientBytesPerParam, n, g.config.Link)
}

// RingAllReduce returns how long a ring all-reduce of the given bytes
// among n ranks takes over link:
//
//	2(n-1)/n · bytes/BW + 2(n-1)·α
//
// every rank sends and receives 2(n-1)/n of the data in 2(n-1) steps, each
// paying the link's latency α (Patarasuk and Yuan, JPDC 2009; NCCL's ring
// algorithm). One rank has nothing to reduce: 0.
func RingAllReduce(bytes float64, n int, link Link) float64 {
	if n < 2 {
		return 0
	}
	r := float64(n)
	return 2*(r-1)/r*bytes/link.Bandwidth + 2*(r-1)*link.Latency
}

// AllReduce prices the all-reduce of the part stage s runs.
func (m replicated) AllReduce(s, n int) float64 { return m.g.AllReduce(m.stage(s), n) }

// syncGradients returns the implicit gradient all-reduce events of a run:
// for every model part that several stages replicate (ModelParts), one
// event per replica on its rank, Index -1 and action REDUCE_GRAD of the
// stage, from the moment every replica has computed its last weight
// gradient of the part (its last B or W) to the all-reduce's end. Each part
// starts as soon as its own replicas are done, overlapping the rest of the
// iteration, as Chimera's eager synchronisation does. The all-reduces run
// beside the point-to-point transfers, not on their links, and without
// variability. A table that writes its own REDUCE_GRAD actions, or whose
// cost model does not price the all-reduce, gets none.
func (s *simulator) syncGradients(cost CostModel) []Event {
	sync, ok := cost.(GradientSync)
	if !ok || s.t.Routes == nil {
		return nil
	}
	last := make([]float64, s.stages)
	done := make([]bool, s.stages)
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.act.Kind == pipeline.ReduceGrad {
			return nil
		}
		for _, sub := range singleActions(nd.act) {
			if sub.Kind == pipeline.Backward || sub.Kind == pipeline.BackwardWeight {
				last[sub.Stage], done[sub.Stage] = max(last[sub.Stage], nd.end), true
			}
		}
	}
	part, parts := ModelParts(s.t)
	replicas := make([][]int, parts)
	for st, p := range part {
		replicas[p] = append(replicas[p], st)
	}
	var events []Event
	for _, group := range replicas {
		if len(group) < 2 {
			continue
		}
		start := 0.0
		for _, st := range group {
			if !done[st] {
				start = -1
				break
			}
			start = max(start, last[st])
		}
		if start < 0 {
			continue
		}
		end := start + sync.AllReduce(group[0], len(group))
		for _, st := range group {
			a := pipeline.Action{Kind: pipeline.ReduceGrad, Stage: st, Microbatch: pipeline.NoMicrobatch}
			events = append(events, Event{Rank: s.t.Placement[st], Index: -1, Action: a, Start: start, End: end})
		}
	}
	return events
}
