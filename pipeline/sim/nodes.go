package sim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// node is one non-bubble action of the table, with its duration. A SEND
// or RECV runs as long as its transfer. What a compute needs and makes is
// worked out once, when the table is built (see wire), so that the event
// loop only looks flags up.
//
// The action itself stays in the table, at Rows[rank][index] (see act),
// and its times, when a run keeps them, in simulator.times: a node is what
// the event loop reads, 40 bytes.
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
	makes [2]int32
	dur   float64
}

// nodeTimes is when a node started and ended.
type nodeTimes struct{ start, end float64 }

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

// buildNodes makes a node of every non-bubble action, rank by rank along
// each row, so that rank r's nodes are the ids from its rankState.first
// on, and, for the Ready policy, files it in its rank's queue. Compute
// noise is drawn in table order, which does not depend on the policy: two
// policies simulated with one seed see the same durations.
func (s *simulator) buildNodes(cost cost.Model, iteration int) error {
	v := s.opt.Variability
	noise := newLogNormal(v.Sigma, v.Seed, "compute-noise", iteration)
	total := 0
	for _, row := range s.t.Rows {
		total += len(row)
	}
	s.nodes = make([]node, 0, total)
	ready := s.opt.Policy == Ready
	for r, row := range s.t.Rows {
		rs := &s.ranks[r]
		slow, straggler := v.Stragglers[r]
		rs.first = int32(len(s.nodes))
		for i := range row {
			a := &row[i]
			if a.Kind == pipeline.Bubble {
				continue
			}
			// Each node is written once, in fresh memory: only what is
			// not zero needs setting.
			id := int32(len(s.nodes))
			s.nodes = s.nodes[:id+1]
			nd := &s.nodes[id]
			nd.rank, nd.index, nd.kind = int32(r), int32(i), a.Kind
			if a.Kind.IsComm() {
				nd.needs[0], nd.makes[0] = noMessage, noMessage
				s.commNodes = append(s.commNodes, id)
				continue
			}
			if a.Kind.IsCompute() {
				d := cost.Compute(*a)
				if !(d >= 0) || math.IsInf(d, 0) {
					return fmt.Errorf("sim: simulate: rank %d position %d (%s): the cost model gives duration %v", r, i, *a, d)
				}
				// A factor of 1 changes nothing, so it is not applied.
				if noise.sigma != 0 {
					d *= noise.next()
				}
				if straggler {
					d *= slow
				}
				nd.dur = d
			}
			s.wire(nd, a)
			s.computes++
			if ready {
				q := queueOf(a.Kind)
				rs.queues[q] = append(rs.queues[q], id)
			}
		}
		rs.pos, rs.end = rs.first, int32(len(s.nodes))
	}
	return nil
}

// wire fills in what node nd, of compute or in-place action a, needs and
// makes: missingInput's inputs and computeDone's messages, as message
// numbers, and its activation change.
func (s *simulator) wire(nd *node, a *pipeline.Action) {
	nd.held = int8(s.rule.delta(*a))
	n, m := 0, 0
	switch a.Kind {
	case pipeline.Forward, pipeline.Backward, pipeline.BackwardInput, pipeline.BackwardWeight:
		n, m = s.wireSingle(nd, n, m, a.Kind, a.Stage, a.Microbatch)
	case pipeline.OverlapFB:
		n, m = s.wireSingle(nd, n, m, pipeline.Forward, a.Stage, a.Microbatch)
		n, m = s.wireSingle(nd, n, m, pipeline.Backward, a.BackStage, a.BackMicrobatch)
	}
	if n < len(nd.needs) {
		nd.needs[n] = noMessage
	}
	if m < len(nd.makes) {
		nd.makes[m] = noMessage
	}
}

// wireSingle adds what single compute action (kind, st, mb) needs to
// nd.needs from position n on, and what it makes to nd.makes from
// position m on, and returns the next free positions. A message that rank
// nd.rank computes itself is needed as made (k), one from another rank as
// arrived (^k).
func (s *simulator) wireSingle(nd *node, n, m int, kind pipeline.Kind, st, mb int) (int, int) {
	first, last := 0, s.stages-1
	if s.t.Routes != nil {
		rt := s.t.RouteOf(mb)
		first, last = rt.First, rt.Last
	}
	backward := s.stages * s.mbs // the first message of direction dirB
	have := func(k, st int) int32 {
		if s.t.Placement[st] == int(nd.rank) {
			return int32(k)
		}
		return ^int32(k)
	}
	switch kind {
	case pipeline.Forward:
		if st > first {
			nd.needs[n], n = have((st-1)*s.mbs+mb, st-1), n+1
		}
		nd.makes[m], m = int32(st*s.mbs+mb), m+1
	case pipeline.Backward, pipeline.BackwardInput:
		nd.needs[n], n = int32(st*s.mbs+mb), n+1
		if st < last {
			nd.needs[n], n = have(backward+(st+1)*s.mbs+mb, st+1), n+1
		}
		nd.makes[m], m = int32(backward+st*s.mbs+mb), m+1
	case pipeline.BackwardWeight:
		nd.needs[n], n = int32(backward+st*s.mbs+mb), n+1
	}
	return n, m
}

// ready reports whether every input of node id is there (inputsReady,
// from the node's wiring).
func (s *simulator) ready(id int32) bool {
	nd := &s.nodes[id]
	for i := 0; i < len(nd.needs); i++ {
		switch k := nd.needs[i]; {
		case k == noMessage:
			return true
		case k >= 0:
			if !s.done[k] {
				return false
			}
		case !s.arrived[^k]:
			return false
		}
	}
	return true
}
