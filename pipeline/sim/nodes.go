package sim

import (
	"fmt"
	"math"

	"pipelab/pipeline"
	"pipelab/pipeline/cost"
)

// node is one non-bubble action of the table, with its duration and, once
// it has run, its start and end. A SEND or RECV runs as long as its
// transfer.
type node struct {
	rank, index int
	act         pipeline.Action
	dur         float64
	start, end  float64
}

// checkTable validates t (pipeline.Table.Validate) and makes sure every
// SEND and RECV has a peer stage on another rank.
func checkTable(t *pipeline.Table) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("sim: simulate: %w", err)
	}
	for r, row := range t.Rows {
		for i, a := range row {
			if !a.Kind.IsComm() {
				continue
			}
			rt := t.RouteOf(a.Microbatch)
			peer := a.Stage + 1
			if a.Kind == pipeline.RecvF || a.Kind == pipeline.SendB {
				peer = a.Stage - 1
			}
			if peer < rt.First || peer > rt.Last {
				return fmt.Errorf("sim: simulate: rank %d position %d (%s): microbatch %d flows through stages %d..%d, so stage %d has no peer stage %d",
					r, i, a, a.Microbatch, rt.First, rt.Last, a.Stage, peer)
			}
			if t.Placement[peer] == r {
				return fmt.Errorf("sim: simulate: rank %d position %d (%s): stages %d and %d share rank %d, so nothing is sent between them",
					r, i, a, a.Stage, peer, r)
			}
		}
	}
	return nil
}

// singleActions returns the single actions a stands for: the forward and
// the backward of an OVERLAP_F_B, a itself otherwise, none for a bubble.
func singleActions(a pipeline.Action) []pipeline.Action {
	switch a.Kind {
	case pipeline.Bubble:
		return nil
	case pipeline.OverlapFB:
		return []pipeline.Action{pipeline.F(a.Stage, a.Microbatch), pipeline.B(a.BackStage, a.BackMicrobatch)}
	}
	return []pipeline.Action{a}
}

// buildNodes makes a node of every non-bubble action and files it in its
// rank's row and, for the Ready policy, in its rank's queue. Compute noise
// is drawn in table order (rank by rank, along each row), which does not
// depend on the policy: two policies simulated with one seed see the same
// durations.
func (s *simulator) buildNodes(cost cost.Model, iteration int) error {
	v := s.opt.Variability
	noise := newLogNormal(v.Sigma, v.Seed, "compute-noise", iteration)
	total := 0
	for _, row := range s.t.Rows {
		total += len(row)
	}
	s.nodes = make([]node, 0, total)
	for r, row := range s.t.Rows {
		rs := &s.ranks[r]
		slow, straggler := v.Stragglers[r]
		if !straggler {
			slow = 1
		}
		rs.row = make([]int32, 0, len(row))
		for i, a := range row {
			if a.IsBubble() {
				continue
			}
			id := int32(len(s.nodes))
			nd := node{rank: r, index: i, act: a}
			if a.Kind.IsCompute() {
				var err error
				if nd.dur, err = computeTime(cost, a, noise, slow); err != nil {
					return fmt.Errorf("sim: simulate: rank %d position %d (%s): %w", r, i, a, err)
				}
			}
			s.nodes = append(s.nodes, nd)
			rs.row = append(rs.row, id)
			if a.Kind.IsComm() {
				s.commNodes = append(s.commNodes, id)
				continue
			}
			s.computes++
			q := queueOf(a.Kind)
			rs.queues[q] = append(rs.queues[q], id)
		}
	}
	return nil
}

// computeTime prices compute action a and applies the run's noise and the
// rank's slowdown factor.
func computeTime(cost cost.Model, a pipeline.Action, noise logNormal, slow float64) (float64, error) {
	d := cost.Compute(a)
	if !(d >= 0) || math.IsInf(d, 0) {
		return 0, fmt.Errorf("the cost model gives duration %v", d)
	}
	return d * noise.next() * slow, nil
}
