package sim

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"

	"pipelab/pipeline"
)

// Options configures Simulate. The zero Options runs every row in its order
// with the costs exactly as the model gives them.
type Options struct {
	// Policy is the order in which ranks run their rows.
	Policy Policy
	// Hint ranks ready actions under the Ready policy.
	Hint Hint
	// ActivationCap bounds the activations a rank may hold under the Ready
	// policy: a forward does not start on a rank that holds this many. Zero
	// means each rank's peak under the fixed order (FixedPeakActivations),
	// so that readiness never buys speed with memory it does not have.
	ActivationCap int
	// Variability perturbs durations; the zero value leaves them exact.
	Variability Variability
}

// Simulate times a schedule table with a cost model.
//
// Every rank has a compute stream that runs one action at a time and a
// communication stream beside it, so transfers overlap compute. A transfer
// occupies its link (the directed pair of ranks) for its duration; transfers
// waiting for a busy link go first come, first served.
//
// A table without SEND/RECV actions gets implicit transfers wherever
// consecutive stages of a microbatch live on different ranks: the output of
// F(s, m) goes to the rank of stage s+1, the input gradient of B or I(s, m)
// to the rank of stage s-1, each as soon as it is computed. A table with
// SEND/RECV actions is timed as written under the Fixed policy: both are
// posted when the rank's row reaches them (a SEND once the action it sends
// has finished), neither blocks the row, the transfer starts when both ends
// have posted, and the consuming compute waits for it to arrive. Under the
// Ready policy transfers always follow the data, as if implicit, so that
// communication stays matched whatever order the ranks run in.
//
// Bubbles take no time: an action starts as soon as its inputs are there,
// its rank's stream is free and the policy allows. UNSHARD, RESHARD and
// REDUCE_GRAD take no time either (the cost models price compute and
// transfers only).
//
// The returned timeline has one event per non-bubble action of the table,
// SEND and RECV events spanning their transfer, and, for implicit transfers,
// one event per transfer on the sending rank with Index -1 and the action
// SEND_F or SEND_B of the sending stage. Events at equal times are resolved
// in a fixed order, so the result is deterministic, and it is exact when the
// costs are integers and there is no variability.
//
// A schedule in which ranks wait on each other forever is a *DeadlockError
// (wrapping pipeline.ErrDeadlock) that names the cycle of waiting ranks.
func Simulate(t *pipeline.Table, cost CostModel, opt Options) (*Timeline, error) {
	return simulate(t, cost, opt, 0)
}

func simulate(t *pipeline.Table, cost CostModel, opt Options, iteration int) (*Timeline, error) {
	s, err := newSimulator(t, cost, opt, iteration)
	if err != nil {
		return nil, err
	}
	return s.run()
}

// Directions of a transfer.
const (
	dirF = 0 // an activation, from stage s to s+1
	dirB = 1 // an input gradient, from stage s to s-1
)

// node is one non-bubble action of the table.
type node struct {
	rank, index int
	act         pipeline.Action
	dur         float64
	start       float64
}

// transfer is one message between ranks, named by its direction and the
// stage and microbatch that produce it.
type transfer struct {
	dir, stage, mb     int
	from, to           int
	dur                float64
	sendPosted         bool
	recvPosted         bool
	start              float64
	sendNode, recvNode int // explicit SEND and RECV nodes, -1 when implicit
}

// link is a directed rank pair: one transfer at a time, the rest queued.
type link struct {
	busy  bool
	queue []int32
}

type rankState struct {
	row  []int32 // node ids in row order
	pos  int     // Fixed: next position in row
	busy bool
	held int
	cap  int
	// Ready: node ids of each queue in row order, and the next of each.
	queues [numQueues][]int32
	heads  [numQueues]int
}

type simulator struct {
	t        *pipeline.Table
	opt      Options
	stages   int
	mbs      int
	explicit bool // SEND/RECV are timed as written
	nodes    []node
	ranks    []rankState
	rule     activationRule

	fDone, bDone []bool  // F(s, m) done; B or I(s, m) done; index s*mbs+m
	fIn, bIn     []bool  // the table runs F(s, m); B or I(s, m)
	arrived      []bool  // transfer (dir, s, m) arrived; index dir*stages*mbs+s*mbs+m
	xferOf       []int32 // transfer id of (dir, s, m), or -1
	xfers        []transfer
	links        []link // index from*ranks+to

	queue    eventQueue
	seq      uint64
	touched  []bool
	toDo     []int
	spare    []int
	computes int // compute and in-place actions not yet finished
	events   []Event
}

func newSimulator(t *pipeline.Table, cost CostModel, opt Options, iteration int) (*simulator, error) {
	if t == nil || cost == nil {
		return nil, fmt.Errorf("sim: simulate: a table and a cost model are required")
	}
	if err := checkTable(t); err != nil {
		return nil, err
	}
	if opt.Policy > Ready {
		return nil, fmt.Errorf("sim: simulate: unknown execution policy %v", opt.Policy)
	}
	if opt.Hint > InputForwardWeight {
		return nil, fmt.Errorf("sim: simulate: unknown readiness hint %v", opt.Hint)
	}
	if opt.ActivationCap < 0 {
		return nil, fmt.Errorf("sim: simulate: activation cap %d is negative", opt.ActivationCap)
	}
	if err := opt.Variability.validate(t.Ranks()); err != nil {
		return nil, err
	}
	s := &simulator{
		t:        t,
		opt:      opt,
		stages:   t.Stages(),
		mbs:      t.Microbatches,
		explicit: opt.Policy == Fixed && t.HasComms(),
		ranks:    make([]rankState, t.Ranks()),
		rule:     newActivationRule(t),
		links:    make([]link, t.Ranks()*t.Ranks()),
		touched:  make([]bool, t.Ranks()),
	}
	n := s.stages * s.mbs
	s.fDone, s.bDone = make([]bool, n), make([]bool, n)
	s.fIn, s.bIn = make([]bool, n), make([]bool, n)
	s.arrived, s.xferOf = make([]bool, 2*n), make([]int32, 2*n)
	for i := range s.xferOf {
		s.xferOf[i] = -1
	}
	if err := s.buildNodes(cost, iteration); err != nil {
		return nil, err
	}
	if err := s.buildTransfers(cost, iteration); err != nil {
		return nil, err
	}
	caps := FixedPeakActivations(t)
	for r := range s.ranks {
		s.ranks[r].cap = caps[r]
		if opt.ActivationCap > 0 {
			s.ranks[r].cap = opt.ActivationCap
		}
	}
	return s, nil
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

// buildNodes prices every action, applying variability in table order.
func (s *simulator) buildNodes(cost CostModel, iteration int) error {
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
		rs.row = make([]int32, 0, len(row))
		for i, a := range row {
			if a.IsBubble() {
				continue
			}
			id := int32(len(s.nodes))
			nd := node{rank: r, index: i, act: a}
			if a.Kind.IsCompute() {
				nd.dur = cost.Compute(a)
				if !(nd.dur >= 0) || math.IsInf(nd.dur, 0) {
					return fmt.Errorf("sim: simulate: rank %d position %d (%s): the cost model gives duration %v", r, i, a, nd.dur)
				}
				nd.dur *= noise.next()
				if straggler {
					nd.dur *= slow
				}
			}
			for _, sub := range singleActions(a) {
				switch sub.Kind {
				case pipeline.Forward:
					s.fIn[s.key(sub.Stage, sub.Microbatch)] = true
				case pipeline.Backward, pipeline.BackwardInput:
					s.bIn[s.key(sub.Stage, sub.Microbatch)] = true
				}
			}
			s.nodes = append(s.nodes, nd)
			rs.row = append(rs.row, id)
			if !a.Kind.IsComm() {
				s.computes++
				q := queueOf(a.Kind)
				rs.queues[q] = append(rs.queues[q], id)
			}
		}
	}
	return nil
}

// buildTransfers creates one transfer per message between ranks, in
// (direction, stage, microbatch) order, and ties explicit SEND/RECV nodes
// to them.
func (s *simulator) buildTransfers(cost CostModel, iteration int) error {
	jitter := newLogNormal(s.opt.Variability.CommSigma, s.opt.Variability.Seed, "comm-jitter", iteration)
	s.xfers = make([]transfer, 0, len(s.xferOf))
	for dir := range 2 {
		for st := range s.stages {
			kind := pipeline.SendF
			if dir == dirB {
				kind = pipeline.SendB
			}
			for m := range s.mbs {
				peer, ok := s.peer(dir, st, m)
				if !ok || s.t.Placement[peer] == s.t.Placement[st] {
					continue
				}
				from, to := s.t.Placement[st], s.t.Placement[peer]
				a := pipeline.Act(kind, st, m)
				d := cost.Transfer(a, from, to)
				if !(d >= 0) || math.IsInf(d, 0) {
					return fmt.Errorf("sim: simulate: transfer %s from rank %d to rank %d: the cost model gives duration %v", a, from, to, d)
				}
				s.xferOf[s.msgKey(dir, st, m)] = int32(len(s.xfers))
				s.xfers = append(s.xfers, transfer{
					dir: dir, stage: st, mb: m, from: from, to: to, dur: d * jitter.next(),
					recvPosted: !s.explicit, sendNode: -1, recvNode: -1,
				})
			}
		}
	}
	s.events = make([]Event, 0, len(s.nodes)+len(s.xfers))
	for id, nd := range s.nodes {
		x := s.commTransfer(nd.act)
		if x < 0 {
			continue
		}
		switch nd.act.Kind {
		case pipeline.SendF, pipeline.SendB:
			s.xfers[x].sendNode = id
		case pipeline.RecvF, pipeline.RecvB:
			s.xfers[x].recvNode = id
		}
	}
	return nil
}

// commTransfer returns the transfer a SEND or RECV action takes part in
// (checkTable makes sure there is one), or -1 for other kinds.
func (s *simulator) commTransfer(a pipeline.Action) int {
	switch a.Kind {
	case pipeline.SendF:
		return int(s.xferOf[s.msgKey(dirF, a.Stage, a.Microbatch)])
	case pipeline.SendB:
		return int(s.xferOf[s.msgKey(dirB, a.Stage, a.Microbatch)])
	case pipeline.RecvF:
		return int(s.xferOf[s.msgKey(dirF, a.Stage-1, a.Microbatch)])
	case pipeline.RecvB:
		return int(s.xferOf[s.msgKey(dirB, a.Stage+1, a.Microbatch)])
	}
	return -1
}

func (s *simulator) key(st, m int) int { return st*s.mbs + m }

// peer returns the stage that receives what stage st sends for microbatch m
// in direction dir, if m's route goes on.
func (s *simulator) peer(dir, st, m int) (int, bool) {
	rt := s.t.RouteOf(m)
	if dir == dirF {
		return st + 1, st < rt.Last
	}
	return st - 1, st > rt.First
}

func (s *simulator) msgKey(dir, st, m int) int { return dir*s.stages*s.mbs + st*s.mbs + m }

// run drives the event loop: all events of one moment are handled before
// any rank chooses what to run next, so that choices see the whole moment.
func (s *simulator) run() (*Timeline, error) {
	for r := range s.ranks {
		s.touch(r)
	}
	now := 0.0
	for {
		s.dispatch(now)
		if s.queue.Len() == 0 {
			break
		}
		now = s.queue[0].time
		for s.queue.Len() > 0 && s.queue[0].time == now {
			s.handle(s.queue.pop(), now)
		}
	}
	if s.computes > 0 || s.commsLeft() {
		return nil, s.deadlock(now)
	}
	SortEvents(s.events)
	return &Timeline{Table: s.t, Events: s.events}, nil
}

// commsLeft reports whether an explicit SEND or RECV was never reached.
func (s *simulator) commsLeft() bool {
	if !s.explicit {
		return false
	}
	for r := range s.ranks {
		if s.ranks[r].pos < len(s.ranks[r].row) {
			return true
		}
	}
	return false
}

func (s *simulator) touch(r int) {
	if !s.touched[r] {
		s.touched[r] = true
		s.toDo = append(s.toDo, r)
	}
}

// dispatch lets every rank touched since the last dispatch start what it
// can, in rank order.
func (s *simulator) dispatch(now float64) {
	for len(s.toDo) > 0 {
		// Swap the list with a spare one, so that ranks touched while
		// dispatching are kept for the next round without allocating.
		todo := s.toDo
		s.toDo, s.spare = s.spare[:0], todo
		slices.Sort(todo)
		for _, r := range todo {
			s.touched[r] = false
			if s.opt.Policy == Ready {
				s.dispatchReady(r, now)
			} else {
				s.dispatchFixed(r, now)
			}
		}
	}
}

// dispatchFixed walks rank r's row from its position: SEND and RECV are
// posted and passed, a compute action starts when it can, and the walk
// stops at the first action that cannot.
func (s *simulator) dispatchFixed(r int, now float64) {
	rs := &s.ranks[r]
	for rs.pos < len(rs.row) {
		id := rs.row[rs.pos]
		a := s.nodes[id].act
		switch a.Kind {
		case pipeline.SendF, pipeline.SendB:
			if !s.producerDone(a) {
				return
			}
			x := s.commTransfer(a)
			s.xfers[x].sendPosted = true
			s.tryTransfer(x, now)
		case pipeline.RecvF, pipeline.RecvB:
			x := s.commTransfer(a)
			s.xfers[x].recvPosted = true
			s.tryTransfer(x, now)
		default:
			if rs.busy || !s.inputsReady(r, a) {
				return
			}
			s.start(id, now)
		}
		rs.pos++
	}
}

// producerDone reports whether the compute whose output a SEND sends has
// finished.
func (s *simulator) producerDone(a pipeline.Action) bool {
	if a.Kind == pipeline.SendF {
		return s.fDone[s.key(a.Stage, a.Microbatch)]
	}
	return s.bDone[s.key(a.Stage, a.Microbatch)]
}

// inputsReady reports whether every input of action a on rank r is there.
func (s *simulator) inputsReady(r int, a pipeline.Action) bool {
	for _, sub := range singleActions(a) {
		if _, ok := s.missingInput(r, sub); ok {
			return false
		}
	}
	return true
}

// missingInput returns the first input of single action a on rank r that
// is not there yet: the producing compute, and ok = true.
func (s *simulator) missingInput(r int, a pipeline.Action) (producer pipeline.Action, ok bool) {
	st, m := a.Stage, a.Microbatch
	switch a.Kind {
	case pipeline.Forward:
		if prev, ok := s.peer(dirB, st, m); ok && !s.have(r, dirF, prev, m) {
			return pipeline.F(prev, m), true
		}
	case pipeline.Backward, pipeline.BackwardInput:
		if !s.fDone[s.key(st, m)] {
			return pipeline.F(st, m), true
		}
		if next, ok := s.peer(dirF, st, m); ok && !s.have(r, dirB, next, m) {
			return pipeline.B(next, m), true // waitAt names the B or I the table has
		}
	case pipeline.BackwardWeight:
		if !s.bDone[s.key(st, m)] {
			return pipeline.I(st, m), true
		}
	}
	return pipeline.Action{}, false
}

// have reports whether rank r has the output of stage st for microbatch m
// in direction dir: computed locally, or arrived.
func (s *simulator) have(r, dir, st, m int) bool {
	if s.t.Placement[st] == r {
		if dir == dirF {
			return s.fDone[s.key(st, m)]
		}
		return s.bDone[s.key(st, m)]
	}
	return s.arrived[s.msgKey(dir, st, m)]
}

// backwardOf names the backward of (st, m) as the table writes it.
func (s *simulator) backwardOf(st, m int) pipeline.Action {
	r := s.t.Placement[st]
	for _, id := range s.ranks[r].queues[queueB] {
		if a := s.nodes[id].act; a.Stage == st && a.Microbatch == m {
			return a
		}
	}
	return pipeline.B(st, m)
}

// start runs node id on its rank's compute stream from now.
func (s *simulator) start(id int32, now float64) {
	nd := &s.nodes[id]
	s.ranks[nd.rank].busy = true
	nd.start = now
	s.push(now+nd.dur, evCompute, id)
}

// tryTransfer starts transfer x, or queues it on its link, once both ends
// have posted.
func (s *simulator) tryTransfer(x int, now float64) {
	xf := &s.xfers[x]
	if !xf.sendPosted || !xf.recvPosted {
		return
	}
	l := &s.links[xf.from*len(s.ranks)+xf.to]
	if l.busy {
		l.queue = append(l.queue, int32(x))
		return
	}
	l.busy = true
	xf.start = now
	s.push(now+xf.dur, evTransfer, int32(x))
}

// handle applies one event at time now.
func (s *simulator) handle(ev event, now float64) {
	switch ev.kind {
	case evCompute:
		s.computeDone(ev.id, now)
	case evTransfer:
		s.transferDone(int(ev.id), now)
	}
}

func (s *simulator) computeDone(id int32, now float64) {
	nd := &s.nodes[id]
	r := nd.rank
	rs := &s.ranks[r]
	rs.busy = false
	rs.held += s.rule.delta(nd.act)
	s.computes--
	s.record(int(id), nd.start, now)
	s.touch(r)
	for _, sub := range singleActions(nd.act) {
		st, m := sub.Stage, sub.Microbatch
		dir := -1
		switch sub.Kind {
		case pipeline.Forward:
			s.fDone[s.key(st, m)] = true
			dir = dirF
		case pipeline.Backward, pipeline.BackwardInput:
			s.bDone[s.key(st, m)] = true
			dir = dirB
		}
		if dir < 0 {
			continue
		}
		if x := s.xferOf[s.msgKey(dir, st, m)]; x >= 0 && !s.explicit {
			s.xfers[x].sendPosted = true
			s.tryTransfer(int(x), now)
		}
	}
}

func (s *simulator) transferDone(x int, now float64) {
	xf := &s.xfers[x]
	s.arrived[s.msgKey(xf.dir, xf.stage, xf.mb)] = true
	s.touch(xf.to)
	if xf.sendNode < 0 && xf.recvNode < 0 {
		kind := pipeline.SendF
		if xf.dir == dirB {
			kind = pipeline.SendB
		}
		s.events = append(s.events, Event{Rank: xf.from, Index: -1, Action: pipeline.Act(kind, xf.stage, xf.mb), Start: xf.start, End: now})
	}
	if xf.sendNode >= 0 {
		s.record(xf.sendNode, xf.start, now)
	}
	if xf.recvNode >= 0 {
		s.record(xf.recvNode, xf.start, now)
	}
	l := &s.links[xf.from*len(s.ranks)+xf.to]
	l.busy = false
	if len(l.queue) > 0 {
		next := int(l.queue[0])
		l.queue = l.queue[1:]
		s.tryTransfer(next, now)
	}
}

// record adds node id's event to the timeline.
func (s *simulator) record(id int, start, end float64) {
	nd := s.nodes[id]
	s.events = append(s.events, Event{Rank: nd.rank, Index: nd.index, Action: nd.act, Start: start, End: end})
}

func (s *simulator) push(t float64, kind eventKind, id int32) {
	s.seq++
	s.queue.push(event{time: t, seq: s.seq, kind: kind, id: id})
}

type eventKind uint8

const (
	evCompute  eventKind = iota // a compute action ends
	evTransfer                  // a transfer arrives
)

// event is one entry of the queue; (time, seq) orders it, so ties go first
// in, first out and runs are reproducible.
type event struct {
	time float64
	seq  uint64
	kind eventKind
	id   int32
}

// eventQueue is a min-heap of events for container/heap.
type eventQueue []event

func (q eventQueue) Len() int { return len(q) }

func (q eventQueue) Less(i, j int) bool {
	if q[i].time != q[j].time {
		return q[i].time < q[j].time
	}
	return q[i].seq < q[j].seq
}

func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *eventQueue) Push(x any) { *q = append(*q, x.(event)) }

func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// push and pop are heap.Push and heap.Pop without boxing the event in an
// interface, which would allocate once per event.
func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	heap.Fix(q, len(*q)-1)
}

func (q *eventQueue) pop() event {
	e := (*q)[0]
	last := len(*q) - 1
	q.Swap(0, last)
	*q = (*q)[:last]
	if last > 0 {
		heap.Fix(q, 0)
	}
	return e
}

// Wait is one rank that cannot move in a deadlocked simulation.
type Wait struct {
	// Rank is the waiting rank, Action the action it waits to run and Index
	// that action's position in the rank's row.
	Rank   int
	Index  int
	Action pipeline.Action
	// WaitsFor is the action whose result it needs, and On the rank that
	// must run it (-1 when no rank of the table runs it).
	WaitsFor pipeline.Action
	On       int
	// AtCap is set under the Ready policy when the rank holds its
	// activation cap and the forward it needs (WaitsFor, or Action itself
	// when WaitsFor is a bubble) may not start.
	AtCap bool
}

func (w Wait) String() string {
	at := fmt.Sprintf("rank %d at position %d (%s)", w.Rank, w.Index, w.Action)
	switch {
	case w.AtCap && w.WaitsFor.IsBubble():
		return at + " holds its activation cap and may start no forward"
	case w.AtCap:
		return fmt.Sprintf("%s waits for %s on rank %d, which the activation cap holds back", at, w.WaitsFor, w.On)
	case w.On < 0:
		return fmt.Sprintf("%s waits for %s, which no rank runs", at, w.WaitsFor)
	}
	return fmt.Sprintf("%s waits for %s on rank %d", at, w.WaitsFor, w.On)
}

// DeadlockError reports ranks that wait on each other forever. It wraps
// pipeline.ErrDeadlock.
type DeadlockError struct {
	// Time is when the last action ended.
	Time float64
	// Waits lists the cycle of ranks, each waiting on the next and the
	// last on the first, when there is one; otherwise every waiting rank.
	Waits []Wait
	// Cycle says whether Waits is a cycle.
	Cycle bool
}

func (e *DeadlockError) Error() string {
	parts := make([]string, len(e.Waits))
	for i, w := range e.Waits {
		parts[i] = w.String()
	}
	what := "ranks wait for actions that never run"
	if e.Cycle {
		what = "a cycle of ranks waits on each other"
	}
	return fmt.Sprintf("sim: deadlock at time %v, %s: %s", e.Time, what, strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, pipeline.ErrDeadlock) true.
func (e *DeadlockError) Unwrap() error { return pipeline.ErrDeadlock }

// deadlock describes why ranks still have work when no event is left.
func (s *simulator) deadlock(now float64) error {
	waits := map[int]Wait{}
	var blocked []int
	for r := range s.ranks {
		if w, ok := s.waitOf(r); ok {
			waits[r] = w
			blocked = append(blocked, r)
		}
	}
	e := &DeadlockError{Time: now}
	for _, start := range blocked {
		seen := map[int]bool{}
		r := start
		for !seen[r] {
			seen[r] = true
			w, ok := waits[r]
			if !ok || w.On < 0 {
				break
			}
			r = w.On
		}
		if _, ok := waits[r]; !ok || !seen[r] || waits[r].On < 0 {
			continue
		}
		// r is on a cycle: walk it once more from r.
		for c := r; ; {
			e.Waits = append(e.Waits, waits[c])
			if c = waits[c].On; c == r {
				break
			}
		}
		e.Cycle = true
		return e
	}
	for _, r := range blocked {
		e.Waits = append(e.Waits, waits[r])
	}
	return e
}

// waitOf says what rank r waits for, if it has work left.
func (s *simulator) waitOf(r int) (Wait, bool) {
	rs := &s.ranks[r]
	if s.opt.Policy == Fixed {
		if rs.pos >= len(rs.row) {
			return Wait{}, false
		}
		return s.waitAt(r, rs.row[rs.pos]), true
	}
	var best int32 = -1
	var bestQ queue
	atCap := int32(-1)
	for q := queueF; q < numQueues; q++ {
		id := s.head(rs, q)
		if id < 0 {
			continue
		}
		if q == queueF && rs.held >= rs.cap && s.inputsReady(r, s.nodes[id].act) {
			atCap = id
			continue
		}
		if best < 0 || s.better(q, id, bestQ, best) {
			best, bestQ = id, q
		}
	}
	switch {
	case best >= 0:
		w := s.waitAt(r, best)
		if rs.held >= rs.cap && w.On == r && w.WaitsFor.Kind == pipeline.Forward {
			w.AtCap = true
		}
		return w, true
	case atCap >= 0:
		nd := s.nodes[atCap]
		return Wait{Rank: r, Index: nd.index, Action: nd.act, On: -1, AtCap: true}, true
	}
	return Wait{}, false
}

// waitAt describes what node id on rank r waits for.
func (s *simulator) waitAt(r int, id int32) Wait {
	nd := s.nodes[id]
	w := Wait{Rank: r, Index: nd.index, Action: nd.act, On: r}
	if nd.act.Kind == pipeline.SendF || nd.act.Kind == pipeline.SendB {
		w.WaitsFor = pipeline.F(nd.act.Stage, nd.act.Microbatch)
		if nd.act.Kind == pipeline.SendB {
			w.WaitsFor = s.backwardOf(nd.act.Stage, nd.act.Microbatch)
		}
		w.On = s.runner(w.WaitsFor)
		return w
	}
	for _, sub := range singleActions(nd.act) {
		producer, missing := s.missingInput(r, sub)
		if !missing {
			continue
		}
		if producer.Kind == pipeline.Backward {
			producer = s.backwardOf(producer.Stage, producer.Microbatch)
		}
		w.WaitsFor, w.On = producer, s.runner(producer)
		if w.On == r || !s.computed(producer) {
			return w
		}
		// Computed on another rank, not arrived: an explicit SEND or RECV
		// was never posted.
		dir := dirF
		if producer.Kind != pipeline.Forward {
			dir = dirB
		}
		xf := s.xfers[s.xferOf[s.msgKey(dir, producer.Stage, producer.Microbatch)]]
		wantSend := !xf.sendPosted
		end := xf.recvNode
		if wantSend {
			end = xf.sendNode
		}
		if end < 0 {
			w.WaitsFor, w.On = commAction(xf, wantSend), -1
		} else {
			w.WaitsFor, w.On = s.nodes[end].act, s.nodes[end].rank
		}
		return w
	}
	return w
}

// runner returns the rank that runs compute action a, or -1 when no rank
// of the table runs it.
func (s *simulator) runner(a pipeline.Action) int {
	k := s.key(a.Stage, a.Microbatch)
	if (a.Kind == pipeline.Forward && s.fIn[k]) || (a.Kind != pipeline.Forward && s.bIn[k]) {
		return s.t.Placement[a.Stage]
	}
	return -1
}

// computed reports whether compute action a (F, B or I) has finished.
func (s *simulator) computed(a pipeline.Action) bool {
	if a.Kind == pipeline.Forward {
		return s.fDone[s.key(a.Stage, a.Microbatch)]
	}
	return s.bDone[s.key(a.Stage, a.Microbatch)]
}

// commAction returns the SEND (send = true) or the RECV of a transfer as
// the table would write it.
func commAction(xf transfer, send bool) pipeline.Action {
	switch {
	case xf.dir == dirF && send:
		return pipeline.Act(pipeline.SendF, xf.stage, xf.mb)
	case xf.dir == dirF:
		return pipeline.Act(pipeline.RecvF, xf.stage+1, xf.mb)
	case send:
		return pipeline.Act(pipeline.SendB, xf.stage, xf.mb)
	}
	return pipeline.Act(pipeline.RecvB, xf.stage-1, xf.mb)
}
