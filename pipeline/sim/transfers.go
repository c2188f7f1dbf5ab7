package sim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// transfer is one message between ranks, named by its direction and the
// stage and microbatch that produce it; msg is its message number and
// link the link it goes over.
type transfer struct {
	dur                float64
	stage, mb          int32
	from, to           int32
	msg, link          int32
	sendNode, recvNode int32 // explicit SEND and RECV nodes, -1 when implicit
	dir                int8
	sendPosted         bool
	recvPosted         bool
}

// link is a directed rank pair: it carries one transfer at a time and
// queues the rest, first come, first served.
type link struct {
	busy  bool
	queue []int32
}

// buildTransfers creates one transfer per message that crosses ranks and
// ties the explicit SEND and RECV nodes to theirs. Transfers are made, and
// their jitter drawn, in (direction, stage, microbatch) order, which does
// not depend on the policy: two policies simulated with one seed see the
// same durations.
func (s *simulator) buildTransfers(cost cost.Model, iteration int) error {
	jitter := newLogNormal(s.opt.Variability.CommSigma, s.opt.Variability.Seed, "comm-jitter", iteration)
	s.xfers = make([]transfer, 0, s.crossings())
	placement := s.t.Placement
	// The links, numbered as first used: at most two per stage.
	linkOf := map[int]int32{}
	for dir := range 2 {
		kind, step := pipeline.SendF, 1
		if dir == dirB {
			kind, step = pipeline.SendB, -1
		}
		for st := range s.stages {
			peer := st + step
			if peer < 0 || peer >= s.stages || placement[peer] == placement[st] {
				continue
			}
			from, to := placement[st], placement[peer]
			li, ok := linkOf[from*len(s.ranks)+to]
			if !ok {
				li = int32(len(s.links))
				linkOf[from*len(s.ranks)+to] = li
				s.links = append(s.links, link{})
			}
			for m := range s.mbs {
				// The route's end, not st being on it: one jitter is
				// drawn per stage pair this admits (see peer). Without
				// routes every microbatch goes through every stage.
				if s.t.Routes != nil {
					if _, ok := s.peer(dir, st, m); !ok {
						continue
					}
				}
				a := pipeline.Act(kind, st, m)
				d := cost.Transfer(a, from, to)
				if !(d >= 0) || math.IsInf(d, 0) {
					return fmt.Errorf("sim: simulate: transfer %s from rank %d to rank %d: the cost model gives duration %v", a, from, to, d)
				}
				if jitter.sigma != 0 {
					d *= jitter.next()
				}
				k := s.msgKey(dir, st, m)
				x := len(s.xfers)
				s.xferOf[k] = int32(x) + 1
				// Each transfer is written once, in fresh memory. Only a
				// table timed as written has RECVs to post; an implicit
				// transfer leaves as soon as its message is made.
				s.xfers = s.xfers[:x+1]
				xf := &s.xfers[x]
				xf.dur, xf.stage, xf.mb, xf.from, xf.to = d, int32(st), int32(m), int32(from), int32(to)
				xf.msg, xf.link, xf.dir = int32(k), li, int8(dir)
				xf.recvPosted, xf.sendNode, xf.recvNode = !s.explicit, -1, -1
			}
		}
	}
	s.tieCommNodes()
	return nil
}

// crossings counts the messages between ranks, at most: every microbatch
// of every pair of consecutive stages on different ranks, both ways.
func (s *simulator) crossings() int {
	n := 0
	for st := 1; st < s.stages; st++ {
		if s.t.Placement[st] != s.t.Placement[st-1] {
			n += 2 * s.mbs
		}
	}
	return n
}

// tieCommNodes records on each transfer the SEND and RECV nodes of the
// table that take part in it, so that their events span the transfer.
func (s *simulator) tieCommNodes() {
	for _, id := range s.commNodes {
		nd := &s.nodes[id]
		x := s.commTransfer(s.act(id))
		switch nd.kind {
		case pipeline.SendF, pipeline.SendB:
			s.xfers[x].sendNode = id
		case pipeline.RecvF, pipeline.RecvB:
			s.xfers[x].recvNode = id
		}
	}
}

// commTransfer returns the transfer a SEND or RECV action takes part in
// (checkTable makes sure there is one), or -1 for other kinds.
func (s *simulator) commTransfer(a pipeline.Action) int {
	switch a.Kind {
	case pipeline.SendF:
		return int(s.xferOf[s.msgKey(dirF, a.Stage, a.Microbatch)]) - 1
	case pipeline.SendB:
		return int(s.xferOf[s.msgKey(dirB, a.Stage, a.Microbatch)]) - 1
	case pipeline.RecvF:
		return int(s.xferOf[s.msgKey(dirF, a.Stage-1, a.Microbatch)]) - 1
	case pipeline.RecvB:
		return int(s.xferOf[s.msgKey(dirB, a.Stage+1, a.Microbatch)]) - 1
	}
	return -1
}

// post marks the sending (send = true) or the receiving end of transfer x
// as ready and starts the transfer if the other end is too.
func (s *simulator) post(x int, send bool, now float64) {
	if send {
		s.xfers[x].sendPosted = true
	} else {
		s.xfers[x].recvPosted = true
	}
	s.tryTransfer(x, now)
}

// tryTransfer starts transfer x, or queues it on its link, once both ends
// have posted.
func (s *simulator) tryTransfer(x int, now float64) {
	xf := &s.xfers[x]
	if !xf.sendPosted || !xf.recvPosted {
		return
	}
	l := &s.links[xf.link]
	if l.busy {
		l.queue = append(l.queue, int32(x))
		return
	}
	l.busy = true
	end := now + xf.dur
	if xf.sendNode < 0 && xf.recvNode < 0 {
		if s.timeline {
			s.starts = append(s.starts, newStart(^int32(x), xf.from, -1, end))
		}
	} else {
		if xf.sendNode >= 0 {
			s.record(xf.sendNode, now, end)
		}
		if xf.recvNode >= 0 {
			s.record(xf.recvNode, now, end)
		}
	}
	s.queue.schedule(end, evTransfer, int32(x))
}

// transferDone delivers transfer x at time now, records it, and hands its
// link to the next transfer waiting for it.
func (s *simulator) transferDone(x int, now float64) {
	xf := &s.xfers[x]
	s.arrived[xf.msg] = true
	s.touch(int(xf.to))
	if s.times != nil {
		s.recordTransfer(x, now)
	}
	l := &s.links[xf.link]
	l.busy = false
	if len(l.queue) > 0 {
		next := int(l.queue[0])
		l.queue = l.queue[1:]
		s.tryTransfer(next, now)
	}
}

// recordTransfer records that transfer x arrived at time end: the end of
// its SEND and RECV, which span it.
func (s *simulator) recordTransfer(x int, end float64) {
	xf := &s.xfers[x]
	if xf.sendNode >= 0 {
		s.times[xf.sendNode].end = end
	}
	if xf.recvNode >= 0 {
		s.times[xf.recvNode].end = end
	}
}

// commAction returns the SEND (send = true) or the RECV of the transfer
// as the table would write it.
func (xf *transfer) commAction(send bool) pipeline.Action {
	switch {
	case xf.dir == dirF && send:
		return pipeline.Act(pipeline.SendF, int(xf.stage), int(xf.mb))
	case xf.dir == dirF:
		return pipeline.Act(pipeline.RecvF, int(xf.stage)+1, int(xf.mb))
	case send:
		return pipeline.Act(pipeline.SendB, int(xf.stage), int(xf.mb))
	}
	return pipeline.Act(pipeline.RecvB, int(xf.stage)-1, int(xf.mb))
}
