package sim

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// syncGradients returns the implicit gradient all-reduce events of a run:
// for every model part that several stages replicate (cost.ModelParts), one
// event per replica on its rank, Index -1 and action REDUCE_GRAD of the
// stage, from the moment every replica has computed its last weight
// gradient of the part (its last B or W) to the all-reduce's end. Each part
// starts as soon as its own replicas are done, overlapping the rest of the
// iteration, as Chimera's eager synchronisation does. The all-reduces run
// beside the point-to-point transfers, not on their links, and without
// variability. A table that writes its own REDUCE_GRAD actions, or whose
// cost model does not price the all-reduce, gets none.
func (s *simulator) syncGradients(model cost.Model) []Event {
	if !syncsGradients(model, s.t) {
		return nil
	}
	sync := model.(cost.GradientSync)
	last := make([]float64, s.stages)
	done := make([]bool, s.stages)
	for i := range s.nodes {
		nd := &s.nodes[i]
		if nd.kind == pipeline.ReduceGrad {
			return nil
		}
		for _, sub := range singleActions(s.act(int32(i))) {
			if sub.Kind == pipeline.Backward || sub.Kind == pipeline.BackwardWeight {
				last[sub.Stage], done[sub.Stage] = max(last[sub.Stage], s.times[i].end), true
			}
		}
	}
	part, parts := cost.ModelParts(s.t)
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
		ranks := make([]int, len(group))
		for i, st := range group {
			ranks[i] = s.t.Placement[st]
		}
		end := start + sync.AllReduce(group[0], ranks)
		for _, st := range group {
			a := pipeline.Action{Kind: pipeline.ReduceGrad, Stage: st, Microbatch: pipeline.NoMicrobatch}
			events = append(events, Event{Rank: s.t.Placement[st], Index: -1, Action: a, Start: start, End: end})
		}
	}
	return events
}

// syncsGradients reports whether a run of t under model all-reduces
// replicas' gradients: the table replicates parts (Routes) and the model
// prices the all-reduce.
func syncsGradients(model cost.Model, t *pipeline.Table) bool {
	_, ok := model.(cost.GradientSync)
	return ok && t.Routes != nil
}
