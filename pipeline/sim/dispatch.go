package sim

import (
	"math/bits"

	"github.com/pipelab/pipelab/pipeline"
)

// rankState is what the dispatch of one rank keeps.
type rankState struct {
	// The rank's nodes, in row order, are the ids first to end-1; pos is
	// the next one the Fixed policy runs.
	first, end, pos int32
	busy            bool // the compute stream runs a node
	held            int  // activations held (activationRule)
	cap             int  // Ready: most activations the rank may hold
	// Ready: node ids of each queue in row order, and the next of each.
	queues [numQueues][]int32
	heads  [numQueues]int
	// Ready, waiting as planned: the node the rank waits for (-1: none
	// yet) and until when.
	waitFor   int32
	waitUntil float64
}

// touch marks rank r for the next dispatch: something it may wait for has
// happened.
func (s *simulator) touch(r int) {
	w, bit := r>>6, uint64(1)<<(r&63)
	if s.touched[w]&bit == 0 {
		s.touched[w] |= bit
		s.pending++
		s.touchedLo, s.touchedHi = min(s.touchedLo, w), max(s.touchedHi, w)
	}
}

// dispatch lets every rank touched since the last dispatch start what it
// can, in rank order, so that ties between ranks resolve the same way in
// every run. A round takes the ranks touched when it begins, in order of
// the bitmap's bits; a rank touched during the round is taken later in
// the same round if it was touched before and not taken yet, and in the
// next round otherwise. Only the bitmap's words that may have bits set
// are read, so that a round costs what it dispatches however many ranks
// the table has.
func (s *simulator) dispatch(now float64) {
	for s.pending > 0 {
		lo, hi := s.touchedLo, s.touchedHi
		s.touchedLo, s.touchedHi = len(s.touched), -1
		copy(s.round[lo:hi+1], s.touched[lo:hi+1])
		for w := lo; w <= hi; w++ {
			for word := s.round[w]; word != 0; {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				s.touched[w] &^= 1 << b
				s.pending--
				if r := w<<6 | b; s.opt.Policy == Ready {
					s.dispatchReady(r, now)
				} else {
					s.dispatchFixed(r, now)
				}
			}
		}
	}
}

// start runs node id on its rank's compute stream from now.
func (s *simulator) start(id int32, now float64) {
	nd := &s.nodes[id]
	s.ranks[nd.rank].busy = true
	s.record(id, now, now+nd.dur)
	s.queue.schedule(now+nd.dur, evCompute, id)
}

// dispatchFixed walks rank r's row from its position: SEND and RECV are
// posted and passed, a compute action starts when it can, and the walk
// stops at the first action that cannot. A SEND waits for the compute it
// sends; a RECV never waits, since the consumer waits for the arrival.
func (s *simulator) dispatchFixed(r int, now float64) {
	rs := &s.ranks[r]
	for rs.pos < rs.end {
		id := rs.pos
		switch k := s.nodes[id].kind; {
		case k < pipeline.SendF || k > pipeline.RecvB:
			if rs.busy || !s.ready(id) {
				return
			}
			s.start(id, now)
		case k == pipeline.SendF || k == pipeline.SendB:
			if !s.explicit {
				break // a plan's transfers follow the data
			}
			a := s.act(id)
			if !s.produced(a) {
				return
			}
			s.post(s.commTransfer(a), true, now)
		default: // RECV_F, RECV_B
			if s.explicit {
				s.post(s.commTransfer(s.act(id)), false, now)
			}
		}
		rs.pos++
	}
}

// dispatchReady starts on rank r, if its stream is free, the best-ranked
// action that can run now. Each queue offers only its head, so actions of
// one class keep their row order. An in-place action (UNSHARD, RESHARD,
// REDUCE_GRAD, OVERLAP_F_B) keeps its row position: no queued action after
// it may pass it, and it runs only once every action before it has.
func (s *simulator) dispatchReady(r int, now float64) {
	rs := &s.ranks[r]
	if rs.busy {
		return
	}
	inPlace := s.head(rs, queueInPlace)
	best, bestQ := int32(-1), queue(0)
	for q := queueF; q < queueInPlace; q++ {
		id := s.head(rs, q)
		if id < 0 || (inPlace >= 0 && s.nodes[id].index > s.nodes[inPlace].index) {
			continue
		}
		if q == queueF && rs.held >= rs.cap {
			continue
		}
		if !s.ready(id) {
			continue
		}
		if best < 0 || s.better(q, id, bestQ, best) {
			best, bestQ = id, q
		}
	}
	if best < 0 && inPlace >= 0 && s.allBefore(rs, s.nodes[inPlace].index) && s.ready(inPlace) {
		best, bestQ = inPlace, queueInPlace
	}
	if s.plan != nil && s.patient(r, best, now) {
		return
	}
	if best >= 0 {
		rs.heads[bestQ]++
		s.start(best, now)
	}
}

// head returns the next node of queue q on a rank, or -1.
func (s *simulator) head(rs *rankState, q queue) int32 {
	if rs.heads[q] < len(rs.queues[q]) {
		return rs.queues[q][rs.heads[q]]
	}
	return -1
}

// better reports whether node a of queue qa outranks node b of queue qb.
func (s *simulator) better(qa queue, a int32, qb queue, b int32) bool {
	ra, rb := s.opt.Hint.rank(qa), s.opt.Hint.rank(qb)
	if ra != rb {
		return ra < rb
	}
	return s.nodes[a].index < s.nodes[b].index
}

// allBefore reports whether every queued action of a rank before position
// index has started (the stream being free, it has also finished).
func (s *simulator) allBefore(rs *rankState, index int32) bool {
	for q := queueF; q < queueInPlace; q++ {
		if id := s.head(rs, q); id >= 0 && s.nodes[id].index < index {
			return false
		}
	}
	return true
}
