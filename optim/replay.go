package optim

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// ErrTimeline marks a timeline the optimizers cannot replay.
var ErrTimeline = errors.New("optim: timeline cannot be replayed")

// replayOrder returns the timeline's events in the order the optimizers
// apply them: start time, then stage, then the timeline's own order. On a
// unit-time grid this is docs/reference.md §1.2's "time step, then stage": it
// fixes the global order of block updates. Updates are applied when their
// backward is processed; since no two actions of one stage overlap in time,
// every forward reads the same block values as if updates landed at the
// backward's end.
//
// A timeline already in that order (sim sorts by start, then rank, which
// is the stage order whenever stage s sits on rank s) is returned as it
// is rather than copied, as a stable sort would leave it unchanged; the
// replays only read the events, so a timeline shared by concurrent runs
// stays safe.
//
// An overlapped pair (OVERLAP_F_B, DualPipeV's) replays as its forward and
// then its backward, both at the pair's time (singleEvents).
func replayOrder(tl *sim.Timeline) []sim.Event {
	events := singleEvents(tl)
	if slices.IsSortedFunc(events, startThenStage) {
		return events
	}
	if len(events) == len(tl.Events) {
		events = slices.Clone(events)
	}
	slices.SortStableFunc(events, startThenStage)
	return events
}

// singleEvents returns tl's events with each OVERLAP_F_B split into its
// forward and its backward (in that order, both timed as the pair); tl's
// own slice when it has none.
func singleEvents(tl *sim.Timeline) []sim.Event {
	if !slices.ContainsFunc(tl.Events, func(e sim.Event) bool { return e.Action.Kind == pipeline.OverlapFB }) {
		return tl.Events
	}
	out := make([]sim.Event, 0, len(tl.Events)+len(tl.Events)/2)
	for _, e := range tl.Events {
		if a := e.Action; a.Kind == pipeline.OverlapFB {
			f, b := e, e
			f.Action, b.Action = pipeline.F(a.Stage, a.Microbatch), pipeline.B(a.BackStage, a.BackMicrobatch)
			out = append(out, f, b)
			continue
		}
		out = append(out, e)
	}
	return out
}

func startThenStage(a, b sim.Event) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return cmp.Compare(a.Action.Stage, b.Action.Stage)
}

// endTime returns the end of the timeline's last event.
func endTime(tl *sim.Timeline) float64 {
	var t float64
	for _, e := range tl.Events {
		t = max(t, e.End)
	}
	return t
}

// checkTimeline verifies that tl's actions are ones an optimizer replays
// (F, B, and the split backward's I and W on stages of obj; communication
// is ignored) and counts its weight-gradient backwards (B and W) and its
// microbatches (forwards on stage 0).
func checkTimeline(tl *sim.Timeline, stages int) (backwards, microbatches int, err error) {
	if err := checkStages(tl, stages); err != nil {
		return 0, 0, err
	}
	if tl.Table.Routes != nil {
		return 0, 0, fmt.Errorf("%w: its microbatches do not all pass every stage (routes), and every replay needs each microbatch's gradient on every block", ErrTimeline)
	}
	for _, e := range singleEvents(tl) {
		a := e.Action
		switch {
		case a.Kind.IsComm():
			continue
		case a.Kind != pipeline.Forward && a.Kind != pipeline.Backward && a.Kind != pipeline.BackwardInput && a.Kind != pipeline.BackwardWeight:
			return 0, 0, fmt.Errorf("%w: rank %d action %d (%v): only F, B, I and W are replayed", ErrTimeline, e.Rank, e.Index, a)
		case a.Stage < 0 || a.Stage >= stages || a.Microbatch < 0:
			return 0, 0, fmt.Errorf("%w: rank %d action %d (%v): stage or microbatch out of range", ErrTimeline, e.Rank, e.Index, a)
		case a.Kind == pipeline.Backward || a.Kind == pipeline.BackwardWeight:
			backwards++
		case a.Kind == pipeline.Forward && a.Stage == 0:
			microbatches++
		}
	}
	return backwards, microbatches, nil
}

// checkStages verifies that tl exists and has one stage per block of the
// objective, the shape every replay needs before it reads an action.
func checkStages(tl *sim.Timeline, stages int) error {
	if tl == nil || tl.Table == nil {
		return fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	if got := tl.Table.Stages(); got != stages {
		return fmt.Errorf("%w: timeline has %d stages, objective %d blocks", ErrTimeline, got, stages)
	}
	return nil
}

// pass is one microbatch in flight: the point its forwards stashed (z_m,
// block by block), and what its backwards need.
type pass struct {
	batch     int
	z         []float64 // stashed blocks
	act       []float64 // stage-wise: the running activation
	grad      []float64 // stage-wise: output gradient; pipelined: block gradients; otherwise the full gradient at z
	haveGrad  bool
	forwards  int
	backwards int
	trip      objectives.Pass // pipelined: the microbatch's activations
	tripBack  int             // pipelined: stages whose backward the trip has run
}

// passes keeps the microbatches in flight of one replay and computes their
// block gradients: stage by stage for a Stagewise objective (one forward
// and one backward per microbatch, as a pipeline does), or from one full
// gradient at z_m per microbatch otherwise.
type passes struct {
	r    *run
	sw   objectives.Stagewise
	pl   objectives.Pipelined // set by a replay whose backwards read other weights than their forwards
	live map[int]*pass
	free []*pass
	g    []float64 // the block gradient backward returns, longest block's size
	// point and full serve a backward that reads other weights than its
	// forward stashed, on an objective without a stage-wise gradient.
	point, full []float64
}

func newPasses(r *run) *passes {
	sw, _ := r.obj.(objectives.Stagewise)
	return &passes{r: r, sw: sw, live: map[int]*pass{}, g: make([]float64, r.maxBlock())}
}

// stashed returns block s of the point microbatch m's forwards stashed.
func (ps *passes) stashed(m, s int) []float64 { return ps.r.block(ps.live[m].z, s) }

// ready reports an error unless microbatch m has run its forward on every
// stage, which any backward of it needs.
func (ps *passes) ready(m, s int) error {
	if p := ps.live[m]; p == nil || p.forwards < ps.r.stages {
		return fmt.Errorf("%w: backward of microbatch %d on stage %d before the forwards of every stage", ErrTimeline, m, s)
	}
	return nil
}

// MaxInFlightBytes bounds the activation memory of the microbatches a
// pipelined replay (objectives.Pipelined) keeps in flight at once: a table
// that needs more is refused with ErrTimeline instead of running out of
// memory.
const MaxInFlightBytes = 4 << 30

// pipelined makes ps take the gradients of pl through its passes, after
// checking that the microbatches events keep in flight at once (from
// their first forward to their last backward) fit in MaxInFlightBytes of
// activations, counting PassBytes for each: a bound, since a pass may
// hold less than all its stages' activations.
func (ps *passes) pipelined(pl objectives.Pipelined, events []sim.Event) error {
	live, peak := map[int]int{}, 0
	for _, e := range events {
		a := e.Action
		switch a.Kind {
		case pipeline.Forward:
			if _, ok := live[a.Microbatch]; !ok {
				live[a.Microbatch] = 0
				peak = max(peak, len(live))
			}
		case pipeline.Backward, pipeline.BackwardWeight:
			if live[a.Microbatch]++; live[a.Microbatch] == ps.r.stages {
				delete(live, a.Microbatch)
			}
		}
	}
	if need := float64(peak) * float64(pl.PassBytes()); need > MaxInFlightBytes {
		return fmt.Errorf("%w: its %d microbatches in flight at once need %.3g GiB of activations, more than %d GiB",
			ErrTimeline, peak, need/(1<<30), MaxInFlightBytes>>30)
	}
	ps.pl = pl
	return nil
}

// forward stashes block s of the current point xs for microbatch m and,
// for a pipelined objective, runs the stage's forward on it.
func (ps *passes) forward(m, s int, xs []float64) error {
	p := ps.live[m]
	if p == nil {
		p = ps.get(m)
		ps.live[m] = p
	}
	if ps.pl != nil && p.forwards != s {
		return fmt.Errorf("%w: forward of microbatch %d on stage %d after its forwards on %d stages", ErrTimeline, m, s, p.forwards)
	}
	zs := ps.r.block(p.z, s)
	copy(zs, xs)
	switch {
	case ps.sw != nil:
		ps.sw.Forward(p.act, zs, p.batch, s)
	case ps.pl != nil:
		p.trip.Forward(zs, p.batch, s)
	}
	p.forwards++
	return nil
}

func (ps *passes) get(m int) *pass {
	var p *pass
	if n := len(ps.free); n > 0 {
		p = ps.free[n-1]
		ps.free = ps.free[:n-1]
	} else {
		p = &pass{z: make([]float64, ps.r.obj.Dim())}
	}
	*p = pass{batch: m % ps.r.obj.Batches(), z: p.z, act: p.act, grad: p.grad, trip: p.trip}
	if ps.pl != nil {
		if p.trip == nil {
			p.trip = ps.pl.NewPass()
		}
		p.grad = resize(p.grad, ps.r.obj.Dim())
		return p
	}
	if ps.sw != nil {
		rows := ps.sw.BatchRows(p.batch)
		p.act = resize(p.act, rows)
		clear(p.act)
		p.grad = resize(p.grad, rows)
	} else if p.grad == nil {
		p.grad = make([]float64, ps.r.obj.Dim())
	}
	return p
}

// resize returns s with length n, reusing its storage when it can.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// input runs the backward of microbatch m on stage s of a pipelined
// objective (a split backward's I) with block s read as read (nil: as
// stashed), keeping the block gradient for the stage's W. Other
// objectives compute the gradient at the W.
func (ps *passes) input(m, s int, read []float64) error {
	if err := ps.ready(m, s); err != nil {
		return err
	}
	if ps.pl != nil {
		return ps.tripBackward(ps.live[m], m, s, read)
	}
	return nil
}

// tripBackward runs stage s's backward on p's trip, which must have run
// those of the stages after s, reading block s as read (nil: as stashed),
// and keeps the block gradient in p.grad.
func (ps *passes) tripBackward(p *pass, m, s int, read []float64) error {
	if s != ps.r.stages-1-p.tripBack {
		return fmt.Errorf("%w: backward of microbatch %d on stage %d before its backward on stage %d", ErrTimeline, m, s, ps.r.stages-1-p.tripBack)
	}
	if read == nil {
		read = ps.r.block(p.z, s)
	}
	p.trip.Backward(ps.r.block(p.grad, s), read, s)
	p.tripBack++
	return nil
}

// backward returns the gradient of block s for microbatch m, drawing
// gradient noise from noise: at its stashed point when read is nil, else
// with block s read as read, the weights the backward finds (the other
// blocks stay those of the forwards: for a stage-wise objective, the
// activations the forwards left; for a pipelined one, the activations of
// the forwards and the gradient the backwards of the later stages passed
// down, each with the weights it read, the stage's own taken at its I when
// the backward is split; otherwise, the stashed point with block s
// replaced, one full gradient for this backward). The slice is reused by
// the next call.
func (ps *passes) backward(m, s int, read []float64, noise *rand.Rand) ([]float64, error) {
	if err := ps.ready(m, s); err != nil {
		return nil, err
	}
	p := ps.live[m]
	g := ps.g[:ps.r.blockLen(s)]
	switch {
	case ps.pl != nil:
		if p.tripBack < ps.r.stages-s {
			if err := ps.tripBackward(p, m, s, read); err != nil {
				return nil, err
			}
		}
		copy(g, ps.r.block(p.grad, s))
	case ps.sw != nil:
		if !p.haveGrad {
			ps.sw.OutputGradient(p.grad, p.act, p.batch)
			p.haveGrad = true
		}
		if read == nil {
			read = ps.r.block(p.z, s)
		}
		ps.sw.BlockGradient(g, p.grad, read, p.batch, s, noise)
	case read == nil:
		if !p.haveGrad {
			ps.r.obj.Gradient(p.grad, p.z, p.batch, noise)
			p.haveGrad = true
		}
		copy(g, ps.r.block(p.grad, s))
	default:
		ps.point, ps.full = resize(ps.point, len(p.z)), resize(ps.full, len(p.z))
		copy(ps.point, p.z)
		copy(ps.r.block(ps.point, s), read)
		ps.r.obj.Gradient(ps.full, ps.point, p.batch, noise)
		copy(g, ps.r.block(ps.full, s))
	}
	p.backwards++
	if p.backwards == ps.r.stages {
		delete(ps.live, m)
		ps.free = append(ps.free, p)
	}
	return g, nil
}
