package optim

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"pipelab/objectives"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
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
	grad      []float64 // stage-wise: output gradient; otherwise the full gradient at z
	haveGrad  bool
	forwards  int
	backwards int
}

// passes keeps the microbatches in flight of one replay and computes their
// block gradients: stage by stage for a Stagewise objective (one forward
// and one backward per microbatch, as a pipeline does), or from one full
// gradient at z_m per microbatch otherwise.
type passes struct {
	r    *run
	sw   objectives.Stagewise
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

// forward stashes block s of the current point xs for microbatch m.
func (ps *passes) forward(m, s int, xs []float64) {
	p := ps.live[m]
	if p == nil {
		p = ps.get(m)
		ps.live[m] = p
	}
	zs := ps.r.block(p.z, s)
	copy(zs, xs)
	if ps.sw != nil {
		ps.sw.Forward(p.act, zs, p.batch, s)
	}
	p.forwards++
}

func (ps *passes) get(m int) *pass {
	var p *pass
	if n := len(ps.free); n > 0 {
		p = ps.free[n-1]
		ps.free = ps.free[:n-1]
	} else {
		p = &pass{z: make([]float64, ps.r.obj.Dim())}
	}
	*p = pass{batch: m % ps.r.obj.Batches(), z: p.z, act: p.act, grad: p.grad}
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

// backward returns the gradient of block s for microbatch m, drawing
// gradient noise from noise: at its stashed point when read is nil, else
// with block s read as read, the weights the backward finds (the other
// blocks stay those of the forwards: for a stage-wise objective, the
// activations the forwards left; otherwise, the stashed point with block s
// replaced, one full gradient for this backward). The slice is reused by
// the next call.
func (ps *passes) backward(m, s int, read []float64, noise *rand.Rand) ([]float64, error) {
	if err := ps.ready(m, s); err != nil {
		return nil, err
	}
	p := ps.live[m]
	g := ps.g[:ps.r.blockLen(s)]
	switch {
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
