package sim

import (
	"context"
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
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
	// ActivationSlack, with ActivationCap 0, raises each rank's cap to its
	// fixed-order peak plus this many activations (--cap +k).
	ActivationSlack int
	// Patience says how long a free rank under the Ready policy waits for
	// its row's next action before it runs another: by default, with the
	// table hint, as long as the fixed order would (see WaitAsPlanned).
	Patience Patience
	// Variability perturbs durations; the zero value leaves them exact.
	Variability Variability
	// Context, when not nil, ends the run early: once it is done, the
	// event loop stops within a few thousand events and the run returns
	// the context's error. It is a field rather than an argument so that
	// every caller that already hands Options through (tune's Problem.Sim,
	// SimulateIterations) is cancelled with it; nil never ends a run.
	Context context.Context
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
// A table whose stages replicate model parts (Chimera's two pipelines)
// all-reduces each part's weight gradients among its replicas once they
// are all computed, when the cost model prices that (cost.GradientSync): one
// REDUCE_GRAD event per replica with Index -1, counted in the makespan.
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
func Simulate(t *pipeline.Table, cost cost.Model, opt Options) (*Timeline, error) {
	if err := checkInputs(t, cost, opt); err != nil {
		return nil, err
	}
	return simulate(t, cost, opt, 0, nil)
}

// simulate runs one iteration of inputs checkInputs has accepted: every
// exported entry point checks them once, and nothing in here again. A run
// that waits as planned times the plan first, unless the caller passes it
// (the plan has no variability, so it is the same for every iteration).
func simulate(t *pipeline.Table, cost cost.Model, opt Options, iteration int, plan []planTimes) (*Timeline, error) {
	s, err := build(t, cost, opt, iteration, false)
	if err != nil {
		return nil, err
	}
	if plan == nil && waitsAsPlanned(opt) {
		if plan, err = makePlan(opt.Context, t, cost); err != nil {
			return nil, err
		}
	}
	if plan != nil {
		s.plan = plan
		for r := range s.ranks {
			s.ranks[r].waitFor = -1
		}
	}
	tl, err := s.run()
	if err != nil {
		return nil, err
	}
	if sync := s.syncGradients(cost); len(sync) > 0 {
		tl.Events = append(tl.Events, sync...)
		SortEvents(tl.Events)
	}
	return tl, nil
}

// simulator is one run of Simulate: the table as nodes and transfers, the
// state of every rank, link and message, and the event queue.
type simulator struct {
	t        *pipeline.Table
	opt      Options
	stages   int
	mbs      int
	explicit bool // SEND/RECV are timed as written
	rule     activationRule

	nodes []node
	// times holds every node's times where the run needs them after it
	// ends (a plan, the all-reduce of replicas' gradients), nil otherwise.
	times     []nodeTimes
	commNodes []int32 // the SEND and RECV nodes
	ranks     []rankState
	computes  int // compute and in-place nodes not yet finished

	// Messages, indexed by msgKey: produced by their compute, arrived at
	// the consuming rank, and the transfer that carries them plus one (0
	// when both stages share a rank).
	done, arrived []bool
	xferOf        []int32
	xfers         []transfer
	links         []link // the rank pairs transfers go between

	queue eventQueue
	// touched has bit r set while rank r waits for a dispatch, in words
	// touchedLo to touchedHi; pending counts those bits, and round is a
	// dispatch round's copy (see dispatch).
	touched, round       []uint64
	touchedLo, touchedHi int
	pending              int
	// starts lists what has started at the moment the loop is at, and
	// events the events of the moments before, in timeline order (see
	// drive); a plan run lists neither.
	starts   []start
	events   []Event
	timeline bool
	order    momentOrder
	// plan holds the plan's times of every node when the run waits as
	// planned (see Patience), nil otherwise.
	plan []planTimes
}

// build prices the table, of inputs checkInputs has accepted, for one
// iteration of a run: durations draw on random streams named after the
// iteration. A plan run (see makePlan) times the row order with transfers
// that follow the data, ignoring the table's SEND and RECV, as the Ready
// policy's transfers do.
func build(t *pipeline.Table, cost cost.Model, opt Options, iteration int, plan bool) (*simulator, error) {
	s := &simulator{
		t:       t,
		opt:     opt,
		stages:  t.Stages(),
		mbs:     t.Microbatches,
		ranks:   make([]rankState, t.Ranks()),
		rule:    newActivationRule(t),
		touched: make([]uint64, (t.Ranks()+63)/64),
		round:   make([]uint64, (t.Ranks()+63)/64),
	}
	s.touchedLo, s.touchedHi = len(s.touched), -1
	messages := 2 * s.stages * s.mbs
	s.done, s.arrived = make([]bool, messages), make([]bool, messages)
	s.xferOf = make([]int32, messages)
	if err := s.buildNodes(cost, iteration); err != nil {
		return nil, err
	}
	s.explicit = opt.Policy == Fixed && len(s.commNodes) > 0 && !plan
	if err := s.buildTransfers(cost, iteration); err != nil {
		return nil, err
	}
	if plan || syncsGradients(cost, t) {
		s.times = make([]nodeTimes, len(s.nodes))
	}
	if !plan {
		s.timeline = true
		s.events = make([]Event, 0, len(s.nodes)+len(s.xfers))
	}
	if opt.Policy == Ready {
		s.setCaps()
	}
	return s, nil
}

// checkInputs refuses what Simulate cannot run, before any work.
func checkInputs(t *pipeline.Table, cost cost.Model, opt Options) error {
	if t == nil || cost == nil {
		return fmt.Errorf("sim: simulate: a table and a cost model are required")
	}
	if err := checkTable(t); err != nil {
		return err
	}
	if opt.Policy > Ready {
		return fmt.Errorf("sim: simulate: unknown execution policy %v", opt.Policy)
	}
	if opt.Hint > InputForwardWeight {
		return fmt.Errorf("sim: simulate: unknown readiness hint %v", opt.Hint)
	}
	if opt.Patience > NoWait {
		return fmt.Errorf("sim: simulate: unknown patience %v", opt.Patience)
	}
	if opt.ActivationCap < 0 || opt.ActivationSlack < 0 {
		return fmt.Errorf("sim: simulate: activation cap %d or slack %d is negative", opt.ActivationCap, opt.ActivationSlack)
	}
	return opt.Variability.validate(t.Ranks())
}

// setCaps sets each rank's activation cap for the Ready policy: the
// option's, or the rank's peak under the fixed order plus the slack.
func (s *simulator) setCaps() {
	if s.opt.ActivationCap > 0 {
		for r := range s.ranks {
			s.ranks[r].cap = s.opt.ActivationCap
		}
		return
	}
	for r, peak := range fixedPeaks(s.t, s.rule) {
		s.ranks[r].cap = peak + s.opt.ActivationSlack
	}
}

// run drives the event loop and returns the timeline.
func (s *simulator) run() (*Timeline, error) {
	if err := s.drive(); err != nil {
		return nil, err
	}
	return &Timeline{Table: s.t, Events: s.events}, nil
}

// cancelEvery is how many moments of the event loop pass between two
// looks at Options.Context: a moment costs well under a microsecond, so a
// cancelled run stops within a millisecond or so, and the look costs
// nothing measurable.
const cancelEvery = 1 << 10

// drive runs the event loop to its end: all events of one moment are
// handled before any rank chooses what to run next, so that choices see
// the whole moment. Every node has its times afterwards, unless the run
// deadlocks, and s.events lists the events in timeline order: what
// starts at a moment is listed as it starts and written out in order as
// the loop leaves the moment (see momentOrder).
func (s *simulator) drive() error {
	for r := range s.ranks {
		s.touch(r)
	}
	now := 0.0
	for moments := 0; ; moments++ {
		if moments%cancelEvery == 0 && s.opt.Context != nil {
			if err := s.opt.Context.Err(); err != nil {
				return err
			}
		}
		s.dispatch(now)
		if s.queue.len() == 0 {
			break
		}
		if next := s.queue.earliest(); next != now {
			s.endMoment(now)
			now = next
		}
		// Apply every event of the moment.
		for ev, ok := s.queue.next(now); ok; ev, ok = s.queue.next(now) {
			switch ev.kind {
			case evCompute:
				s.computeDone(ev.id, now)
			case evTransfer:
				s.transferDone(int(ev.id), now)
			case evWake:
				s.touch(int(ev.id))
			}
		}
	}
	s.endMoment(now)
	if s.stuck() {
		return s.deadlock(now)
	}
	return nil
}

// computeDone ends node id at time now: its rank is free, and what it
// produced is there. Implicit transfers leave as soon as their message is
// computed; explicit ones wait for their SEND to be posted.
func (s *simulator) computeDone(id int32, now float64) {
	nd := &s.nodes[id]
	rs := &s.ranks[nd.rank]
	rs.busy = false
	rs.held += int(nd.held)
	s.computes--
	if s.times != nil {
		s.times[id].end = now
	}
	s.touch(int(nd.rank))
	for i := 0; i < len(nd.makes) && nd.makes[i] != noMessage; i++ {
		k := nd.makes[i]
		s.done[k] = true
		if x := s.xferOf[k]; x > 0 && !s.explicit {
			s.post(int(x)-1, true, now)
		}
	}
}

// record notes that node id runs from start, the moment the loop is at,
// to end. Nothing is cut short, so the end is known at the start, and it
// is the time the event loop will end it at.
func (s *simulator) record(id int32, start, end float64) {
	nd := &s.nodes[id]
	if s.times != nil {
		s.times[id].start = start
	}
	if s.timeline {
		s.starts = append(s.starts, newStart(id, nd.rank, nd.index, end))
	}
}

// newStart is a start of node id, or of implicit transfer ^id (at index
// -1), on rank r.
func newStart(id, r, index int32, end float64) start {
	return start{end: end, id: id, rank: r, index: index}
}

// endMoment writes the events of what started at moment now to the
// timeline, in order of rank, position and start.
func (s *simulator) endMoment(now float64) {
	if !s.timeline || len(s.starts) == 0 {
		return
	}
	starts := s.starts
	places := s.order.place(starts)
	n := len(s.events)
	s.events = s.events[:n+len(starts)]
	out := s.events[n:]
	rows := s.t.Rows
	for k := range starts {
		st := &starts[k]
		e := &out[k]
		if places != nil {
			e = &out[places[k]]
		}
		e.Rank = int(st.rank)
		e.Index = int(st.index)
		if st.id >= 0 {
			e.Action = rows[st.rank][st.index]
		} else {
			xf := &s.xfers[^st.id]
			e.Action = pipeline.Action{Kind: pipeline.SendF + 2*pipeline.Kind(xf.dir), Stage: int(xf.stage), Microbatch: int(xf.mb)}
		}
		e.Start = now
		e.End = st.end
	}
	s.starts = s.starts[:0]
}
