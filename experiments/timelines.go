package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"sync"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// pipeKey names one timeline: the family, the shape and the timing. A
// flush key names one iteration of n microbatches of a sync run.
type pipeKey struct {
	family       string
	flush        bool
	stages, h, n int
	replicas     int // LocalSGD's R (0: S)
	budget       float64
	cost         CostSpec
	// table, when set, is the table itself (Run.Table): family is ignored
	// and n is its own.
	table *pipeline.Table
}

// pipeTimeline is a timed schedule the optimizers replay.
type pipeTimeline struct {
	tl *sim.Timeline
	// n is the microbatch count (matched to the budget when there is one).
	n int
	// time is the run's simulated duration, averagings included.
	time float64
}

type cacheEntry struct {
	once sync.Once
	val  *pipeTimeline
	err  error
}

// Timelines caches timelines: every step size and seed of a figure replays
// the same one. Entries are computed once, whichever run asks first; the
// result does not depend on which. claims counts, for each key, the runs
// announced (Claim) that have not finished yet: when the last of
// them is done the entry is dropped, so a sweep holds only the timelines
// its unfinished runs still need (the full scaling figure's take hundreds
// of megabytes). A key no run claimed stays cached. The cache only saves
// work: a run that asks for a dropped timeline rebuilds the same one.
//
// A sweep's runner owns one (sweep.Runner.Timelines), for as long as it
// runs; Execute and Train, without one, build a cache for the one run. The
// zero Timelines is an empty cache, safe for concurrent use.
type Timelines struct {
	mu     sync.Mutex
	m      map[pipeKey]*cacheEntry
	claims map[pipeKey]int
	// matched caches the microbatch counts that budgets match, a few
	// bytes each, kept when their timelines are dropped: RPD needs
	// PipeDream's count, never its timeline.
	matched map[pipeKey]*matchEntry
}

// timelineKey names the timeline of family for the run's shape.
func timelineKey(family string, r Run) pipeKey {
	k := pipeKey{family: family, stages: r.Stages, n: r.TotalMicrobatches, budget: r.Budget, cost: r.Cost, table: r.Table}
	if family == "localsgd" {
		k.h, k.replicas = r.LocalSteps, r.Replicas
	}
	return k
}

// flushKey names one iteration of n microbatches of the run's sync method.
func flushKey(r Run) pipeKey {
	return pipeKey{family: r.Family, flush: true, stages: r.Stages, n: r.Microbatches, cost: r.Cost, table: r.Table}
}

// timelineFor returns the timeline of family for the run's shape: N fixed,
// or the smallest N whose duration reaches the budget (optim.MatchBudget).
func (c *Timelines) timelineFor(family string, r Run) (*pipeTimeline, error) {
	return c.cached(timelineKey(family, r))
}

// runTimelines lists the timelines a run asks the cache for (planFor and
// cutTime): the one its method replays, then its cut's rivals. RPD on
// sampled delays asks for none: it takes PipeDream's microbatch count
// (matchedBudget).
func runTimelines(r Run) []pipeKey {
	if r.Measure != Convergence {
		return nil
	}
	var keys []pipeKey
	switch d := methodOf(r.Method); {
	case d.Async():
		keys = append(keys, timelineKey(cmp.Or(r.Family, d.Family), r))
	case d.Replay == optim.ReplayAveraging:
		keys = append(keys, timelineKey(d.Family, r))
	case d.Replay == optim.ReplayFlush:
		keys = append(keys, flushKey(r))
	case d.Replay == optim.ReplaySampled && r.DelayModel == DelayExact:
		keys = append(keys, timelineKey(cmp.Or(r.Family, d.Family), r))
	case d.Replay == optim.ReplaySampled && r.DelayModel != "":
		// A measured delay model reads PipeDream's timeline.
		keys = append(keys, timelineKey(d.Family, r))
	}
	for _, c := range r.Cut {
		rr := r
		rr.LocalSteps = c.LocalSteps
		keys = append(keys, timelineKey(c.Method, rr))
	}
	return keys
}

// Claim announces that each of runs will ask for its timelines
// and then call Release.
func (c *Timelines) Claim(runs []Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.claims == nil {
		c.claims = map[pipeKey]int{}
	}
	for _, r := range runs {
		for _, k := range runTimelines(r) {
			c.claims[k]++
		}
	}
}

// Release says that run r, claimed, is done with its timelines:
// those no other claimed run needs are dropped from the cache.
func (c *Timelines) Release(r Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range runTimelines(r) {
		if c.claims[k] == 0 {
			continue // not claimed
		}
		c.claims[k]--
		if c.claims[k] == 0 {
			delete(c.claims, k)
			delete(c.m, k)
		}
	}
}

// Held counts the timelines the cache holds and the keys claimed by runs
// not yet released: a sweep that is done leaves none of either.
func (c *Timelines) Held() (timelines, claims int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), len(c.claims)
}

// cached returns the timeline of k, built by the first caller.
func (c *Timelines) cached(k pipeKey) (*pipeTimeline, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[pipeKey]*cacheEntry{}
	}
	e, ok := c.m[k]
	if !ok {
		e = &cacheEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		if k.flush {
			e.val, e.err = buildFlush(k)
		} else {
			e.val, e.err = c.buildTimeline(k)
		}
	})
	return e.val, e.err
}

// flushTimelineFor returns one iteration of the run's sync method: its
// flush family with the run's microbatches per iteration on the run's
// stages, timed by the run's cost model.
func (c *Timelines) flushTimelineFor(r Run) (*pipeTimeline, error) { return c.cached(flushKey(r)) }

// buildFlush times one flush iteration by the event simulation, under
// unit time (every F, B, I and W one step, transfers free: a 1F1B
// iteration lasts 2(N + S - 1) steps) or the run's cost model. The
// iteration lasts until its last event ends, the period optim.Sync repeats
// it with. A table that is not a flush of every microbatch through every
// stage is bad input.
func buildFlush(k pipeKey) (*pipeTimeline, error) {
	tab, name := k.table, k.family
	if tab == nil {
		var err error
		if tab, err = generate(k.family, pipeline.Shape{Ranks: k.stages, Microbatches: k.n}); err != nil {
			return nil, err
		}
	} else {
		name = "the given table"
	}
	switch {
	case tab.Update != pipeline.Flush:
		return nil, badInputf("%s: method sync needs a flush schedule (gpipe, 1f1b, zb-h1, ...), this table's update rule is %v", name, tab.Update)
	case tab.Routes != nil:
		return nil, badInputf("%s: its microbatches do not all pass every stage; method sync needs one gradient per block from each", name)
	}
	model, err := k.cost.Model(tab)
	if err != nil {
		return nil, err
	}
	tl, err := sim.Simulate(tab, model, sim.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s with %d stages and %d microbatches: %w", name, tab.Stages(), tab.Microbatches, err)
	}
	pt := &pipeTimeline{tl: tl, n: tab.Microbatches}
	pt.time = lastEnd(pt)
	return pt, nil
}

// timing prices a family's tables for one shape.
type timing struct {
	family string
	shape  pipeline.Shape
	table  *pipeline.Table // a given table instead of the family's
	cost   CostSpec
	// grid says the timeline is the unit-time grid itself: unit time and
	// a family whose every action sits in the step it runs (PipeDream's
	// and LocalSGD's, docs/reference.md §1.2, §1.5). Any other table is
	// timed by the event simulation, at unit cost too.
	grid  bool
	avg   float64 // one LocalSGD averaging (GPU model only)
	round int     // microbatches per LocalSGD round
}

// onGrid reports whether family's unit-time timeline is its grid.
func onGrid(family string) bool { return family == DefaultAsyncFamily || family == "localsgd" }

func newTiming(k pipeKey) (*timing, error) {
	t := &timing{family: k.family, shape: pipeline.Shape{Ranks: k.stages, LocalSteps: k.h, Replicas: k.replicas},
		table: k.table, cost: k.cost, grid: k.cost.unitTime() && k.table == nil && onGrid(k.family)}
	if k.family == "localsgd" && k.table == nil {
		t.round = cmp.Or(k.replicas, k.stages) * k.h
	}
	if !k.cost.desc().GPU || t.round == 0 {
		return t, nil
	}
	gm, err := gpuModel(k.cost, k.stages)
	if err != nil {
		return nil, err
	}
	t.avg = gm.AveragingTime(cmp.Or(k.replicas, k.stages))
	return t, nil
}

// build times the table with n microbatches and returns the timeline and
// its duration: the grid itself under unit time (every action sits in the
// step it runs), the event simulation under the GPU model, each LocalSGD
// round after the first moved by the averagings before it, and the last
// complete round's averaging added to the duration. A run of n
// microbatches averages q = ⌊n / RH⌋ times, so its duration is the
// makespan plus q·T_avg.
func (t *timing) build(n int) (*sim.Timeline, float64, error) {
	tab := t.table
	if tab == nil {
		sh := t.shape
		sh.Microbatches = n
		var err error
		if tab, err = generate(t.family, sh); err != nil {
			return nil, 0, err
		}
	}
	if t.grid {
		tl := sim.FromGrid(tab)
		return tl, sim.Makespan(tl), nil
	}
	model, err := t.cost.Model(tab)
	if err != nil {
		return nil, 0, err
	}
	tl, err := sim.Simulate(tab, model, sim.Options{})
	if err != nil {
		return nil, 0, err
	}
	span := sim.Makespan(tl)
	if t.round > 0 && t.avg > 0 {
		q := n / t.round
		tl = shiftRounds(tl, t.round, t.avg)
		span += float64(q) * t.avg
	}
	return tl, span, nil
}

func (c *Timelines) buildTimeline(k pipeKey) (*pipeTimeline, error) {
	t, err := newTiming(k)
	if err != nil {
		return nil, err
	}
	n, err := c.matchedMicrobatches(k)
	if err != nil {
		return nil, err
	}
	tl, d, err := t.build(n)
	if err != nil {
		return nil, err
	}
	return &pipeTimeline{tl: tl, n: n, time: d}, nil
}

type matchEntry struct {
	once sync.Once
	m    optim.Match
	err  error
}

// matchedMicrobatches returns k's microbatch count: N fixed, or the
// smallest N whose duration reaches the budget (optim.MatchBudget),
// found once per key.
func (c *Timelines) matchedMicrobatches(k pipeKey) (int, error) {
	m, err := c.matchedBudget(k)
	return m.Microbatches, err
}

// matchedBudget is matchedMicrobatches with the overshoot of the match
// (zero without a budget).
func (c *Timelines) matchedBudget(k pipeKey) (optim.Match, error) {
	switch {
	case k.table != nil:
		return optim.Match{Microbatches: k.table.Microbatches}, nil
	case k.budget <= 0:
		return optim.Match{Microbatches: k.n}, nil
	}
	c.mu.Lock()
	if c.matched == nil {
		c.matched = map[pipeKey]*matchEntry{}
	}
	e, ok := c.matched[k]
	if !ok {
		e = &matchEntry{}
		c.matched[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.m, e.err = matchBudget(k) })
	return e.m, e.err
}

// matchBudget finds the microbatch count of k's budget (optim.MatchBudget,
// docs/reference.md §1.6): on the grid's closed-form duration, or on the
// timed table's duration, where a count the family refuses (DualPipeV
// needs 2P) does not reach the budget.
func matchBudget(k pipeKey) (optim.Match, error) {
	t, err := newTiming(k)
	if err != nil {
		return optim.Match{}, err
	}
	var m optim.Match
	var refused error // the family's refusal of the last count tried
	if t.grid {
		m, err = optim.MatchBudget(k.budget, optim.GridDuration(k.family, t.shape))
	} else {
		m, err = optim.MatchBudget(k.budget, func(n int) (float64, error) {
			_, d, err := t.build(n)
			if errors.Is(err, errRefused) {
				refused = err
				return 0, nil
			}
			return d, err
		})
	}
	if err != nil && refused != nil {
		err = refused
	}
	if err != nil {
		return optim.Match{}, fmt.Errorf("%s with %d stages, budget %g: %w", k.family, k.stages, k.budget, err)
	}
	return m, nil
}

// errRefused marks a shape the family's generator refuses.
var errRefused = errors.New("the family refuses the shape")

// generate builds the family's table for sh, refusing by arithmetic one
// that would not fit in memory (replayCellBytes a cell); a shape the
// family refuses is bad input that wraps errRefused.
func generate(family string, sh pipeline.Shape) (*pipeline.Table, error) {
	if err := GuardShape(family, sh, ReplayCellBytes); err != nil {
		return nil, err
	}
	tab, err := pipeline.Generate(family, sh)
	if err != nil {
		return nil, &refusal{fmt.Errorf("%s with %d ranks and %d microbatches: %w", family, sh.Ranks, sh.Microbatches, err)}
	}
	return tab, nil
}

// refusal is a family's refusal of a shape: bad input.
type refusal struct{ error }

func (r *refusal) Unwrap() error { return r.error }

// Is matches errRefused and ErrBadInput.
func (r *refusal) Is(target error) bool { return target == errRefused || target == ErrBadInput }
