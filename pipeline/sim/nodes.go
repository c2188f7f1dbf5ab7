package sim

import (
	"fmt"
	"math"

	"pipelab/pipeline"
	"pipelab/pipeline/cost"
)

// node is one non-bubble action of the table, with its duration and, once
// it has run, its start and end. A SEND or RECV runs as long as its
// transfer. What a compute needs and makes is worked out once, when the
// table is built (see wire), so that the event loop only looks flags up.
//
// The action itself stays in the table, at Rows[rank][index] (see act):
// a node is what the event loop reads, 56 bytes.
type node struct {
	rank, index int32
	kind        pipeline.Kind
	// held is the change in the rank's activations when it ends.
	held int8
	// needs lists the messages that must be there before the node runs:
	// k for message k produced (s.done), ^k for message k arrived
	// (s.arrived); noMessage ends the list.
	needs [3]int32
	// makes lists the messages the node produces when it ends; noMessage
	// ends the list.
	makes      [2]int32
	dur        float64
	start, end float64
}

// act returns the action of node id.
func (s *simulator) act(id int32) pipeline.Action {
	nd := &s.nodes[id]
	return s.t.Rows[nd.rank][nd.index]
}

// noMessage marks the end of a node's needs or makes.
const noMessage = int32(-1 << 31)

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
			nd := node{rank: int32(r), index: int32(i), kind: a.Kind}
			if a.Kind.IsCompute() {
				var err error
				if nd.dur, err = computeTime(cost, a, noise, slow); err != nil {
					return fmt.Errorf("sim: simulate: rank %d position %d (%s): %w", r, i, a, err)
				}
			}
			s.wire(&nd, a)
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

// wire fills in what node nd, of action act, needs and makes:
// missingInput's inputs and computeDone's messages, as message numbers,
// and its activation change.
func (s *simulator) wire(nd *node, act pipeline.Action) {
	nd.needs = [3]int32{noMessage, noMessage, noMessage}
	nd.makes = [2]int32{noMessage, noMessage}
	nd.held = int8(s.rule.delta(act))
	if act.Kind.IsComm() {
		return
	}
	needs, makes := nd.needs[:0], nd.makes[:0]
	// have is the message as rank nd.rank holds it, as in s.have.
	have := func(dir, st, m int) int32 {
		k := int32(s.msgKey(dir, st, m))
		if s.t.Placement[st] == int(nd.rank) {
			return k
		}
		return ^k
	}
	for _, a := range singleActions(act) {
		st, m := a.Stage, a.Microbatch
		switch a.Kind {
		case pipeline.Forward:
			if prev, ok := s.peer(dirB, st, m); ok {
				needs = append(needs, have(dirF, prev, m))
			}
		case pipeline.Backward, pipeline.BackwardInput:
			needs = append(needs, int32(s.msgKey(dirF, st, m)))
			if next, ok := s.peer(dirF, st, m); ok {
				needs = append(needs, have(dirB, next, m))
			}
		case pipeline.BackwardWeight:
			needs = append(needs, int32(s.msgKey(dirB, st, m)))
		}
		if dir, ok := messageDir(a.Kind); ok {
			makes = append(makes, int32(s.msgKey(dir, st, m)))
		}
	}
}

// ready reports whether every input of node id is there (inputsReady,
// from the node's wiring).
func (s *simulator) ready(id int32) bool {
	for _, k := range s.nodes[id].needs {
		switch {
		case k == noMessage:
			return true
		case k >= 0 && !s.done[k], k < 0 && !s.arrived[^k]:
			return false
		}
	}
	return true
}
