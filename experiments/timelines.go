package experiments

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/cost"
	"pipelab/pipeline/sim"
)

// pipeKey names one timeline: the family, the shape and the timing. A
// flush key names one iteration of n microbatches of a sync run.
type pipeKey struct {
	family       string
	flush        bool
	stages, h, n int
	budget       float64
	cost         CostSpec
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

// timelines caches timelines: every step size and seed of a figure replays
// the same one. Entries are computed once, whichever run asks first; the
// result does not depend on which. claims counts, for each key, the runs
// announced (claimTimelines) that have not finished yet: when the last of
// them is done the entry is dropped, so a sweep holds only the timelines
// its unfinished runs still need (the full scaling figure's take hundreds
// of megabytes). A key no run claimed stays cached. The cache only saves
// work: a run that asks for a dropped timeline rebuilds the same one.
var timelines struct {
	sync.Mutex
	m      map[pipeKey]*cacheEntry
	claims map[pipeKey]int
}

// timelineKey names the timeline of family for the run's shape.
func timelineKey(family string, r Run) pipeKey {
	k := pipeKey{family: family, stages: r.Stages, n: r.Microbatches, budget: r.Budget, cost: r.Cost}
	if family == "localsgd" {
		k.h = r.LocalSteps
	}
	return k
}

// flushKey names one iteration of n microbatches of the run's sync method.
func flushKey(r Run) pipeKey {
	return pipeKey{family: r.Family, flush: true, stages: r.Stages, n: r.PerIteration, cost: r.Cost}
}

// timelineFor returns the timeline of family for the run's shape: N fixed,
// or the smallest N whose duration reaches the budget (optim.MatchBudget).
func timelineFor(family string, r Run) (*pipeTimeline, error) {
	return cached(timelineKey(family, r))
}

// runTimelines lists the timelines a run asks the cache for (methodFor and
// cutTime): the one its method replays, then its cut's rivals. RPD asks
// for none: it takes PipeDream's microbatch count (microbatchesFor).
func runTimelines(r Run) []pipeKey {
	if r.Measure != Convergence {
		return nil
	}
	var keys []pipeKey
	switch {
	case slices.Contains(AsyncMethods, r.Method):
		keys = append(keys, timelineKey(cmp.Or(r.Family, DefaultAsyncFamily), r))
	case r.Method == "localsgd":
		keys = append(keys, timelineKey("localsgd", r))
	case r.Method == "sync":
		keys = append(keys, flushKey(r))
	case r.Method == "rpd" && r.DelayModel != "":
		// A measured delay model reads PipeDream's timeline.
		keys = append(keys, timelineKey("pipedream", r))
	}
	for _, c := range r.Cut {
		rr := r
		rr.LocalSteps = c.LocalSteps
		keys = append(keys, timelineKey(c.Method, rr))
	}
	return keys
}

// claimTimelines announces that each of runs will ask for its timelines
// and then call releaseTimelines.
func claimTimelines(runs []Run) {
	timelines.Lock()
	defer timelines.Unlock()
	if timelines.claims == nil {
		timelines.claims = map[pipeKey]int{}
	}
	for _, r := range runs {
		for _, k := range runTimelines(r) {
			timelines.claims[k]++
		}
	}
}

// releaseTimelines says that run r, claimed, is done with its timelines:
// those no other claimed run needs are dropped from the cache.
func releaseTimelines(r Run) {
	timelines.Lock()
	defer timelines.Unlock()
	for _, k := range runTimelines(r) {
		if timelines.claims[k] == 0 {
			continue // not claimed
		}
		timelines.claims[k]--
		if timelines.claims[k] == 0 {
			delete(timelines.claims, k)
			delete(timelines.m, k)
		}
	}
}

// cached returns the timeline of k, built by the first caller.
func cached(k pipeKey) (*pipeTimeline, error) {
	timelines.Lock()
	if timelines.m == nil {
		timelines.m = map[pipeKey]*cacheEntry{}
	}
	e, ok := timelines.m[k]
	if !ok {
		e = &cacheEntry{}
		timelines.m[k] = e
	}
	timelines.Unlock()
	e.once.Do(func() {
		if k.flush {
			e.val, e.err = buildFlush(k)
		} else {
			e.val, e.err = buildTimeline(k)
		}
	})
	return e.val, e.err
}

// flushTimelineFor returns one iteration of the run's sync method: its
// flush family with the run's microbatches per iteration on the run's
// stages, timed by the run's cost model.
func flushTimelineFor(r Run) (*pipeTimeline, error) { return cached(flushKey(r)) }

// buildFlush times one flush iteration by the event simulation, under
// unit time (every F, B, I and W one step, transfers free: a 1F1B
// iteration lasts 2(N + S - 1) steps) or the GPU model. The iteration lasts
// until its last event ends, the period optim.Sync repeats it with.
func buildFlush(k pipeKey) (*pipeTimeline, error) {
	tab, err := pipeline.Generate(k.family, pipeline.Shape{Ranks: k.stages, Microbatches: k.n})
	if err != nil {
		return nil, err
	}
	var model cost.Model = cost.Unit{}
	if k.cost.CostModel == "gpu" {
		if model, err = gpuModel(k.cost, k.stages); err != nil {
			return nil, err
		}
	}
	tl, err := sim.Simulate(tab, model, sim.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s with %d stages and %d microbatches: %w", k.family, k.stages, k.n, err)
	}
	pt := &pipeTimeline{tl: tl, n: k.n}
	pt.time = lastEnd(pt)
	return pt, nil
}

// timing prices a family's tables for one shape.
type timing struct {
	family string
	shape  pipeline.Shape
	gm     *cost.GPUModel // nil under unit time
	avg    float64        // one LocalSGD averaging (GPU model only)
	round  int            // microbatches per LocalSGD round
}

func newTiming(k pipeKey) (*timing, error) {
	t := &timing{family: k.family, shape: pipeline.Shape{Ranks: k.stages, LocalSteps: k.h}}
	if k.family == "localsgd" {
		t.round = k.stages * k.h // R = S replicas
	}
	if k.cost.CostModel != "gpu" {
		return t, nil
	}
	gm, err := gpuModel(k.cost, k.stages)
	if err != nil {
		return nil, err
	}
	t.gm = gm
	if k.family == "localsgd" {
		t.avg = AveragingTime(gm, k.stages)
	}
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
	sh := t.shape
	sh.Microbatches = n
	tab, err := pipeline.Generate(t.family, sh)
	if err != nil {
		return nil, 0, err
	}
	if t.gm == nil {
		tl := sim.FromGrid(tab)
		return tl, sim.Makespan(tl), nil
	}
	tl, err := sim.Simulate(tab, t.gm, sim.Options{})
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

func buildTimeline(k pipeKey) (*pipeTimeline, error) {
	t, err := newTiming(k)
	if err != nil {
		return nil, err
	}
	n, err := matchedMicrobatches(k)
	if err != nil {
		return nil, err
	}
	tl, d, err := t.build(n)
	if err != nil {
		return nil, err
	}
	return &pipeTimeline{tl: tl, n: n, time: d}, nil
}

// matched caches the microbatch counts that budgets match, a few bytes
// each, kept when their timelines are dropped: RPD needs PipeDream's
// count, never its timeline.
var matched struct {
	sync.Mutex
	m map[pipeKey]*matchEntry
}

type matchEntry struct {
	once sync.Once
	n    int
	err  error
}

// microbatchesFor returns the microbatch count of family's timeline for
// the run's shape (timelineFor's), without building or keeping the
// timeline.
func microbatchesFor(family string, r Run) (int, error) {
	return matchedMicrobatches(timelineKey(family, r))
}

// matchedMicrobatches returns k's microbatch count: N fixed, or the
// smallest N whose duration reaches the budget (optim.MatchBudget),
// found once per key.
func matchedMicrobatches(k pipeKey) (int, error) {
	if k.budget <= 0 {
		return k.n, nil
	}
	matched.Lock()
	if matched.m == nil {
		matched.m = map[pipeKey]*matchEntry{}
	}
	e, ok := matched.m[k]
	if !ok {
		e = &matchEntry{}
		matched.m[k] = e
	}
	matched.Unlock()
	e.once.Do(func() { e.n, e.err = matchBudget(k) })
	return e.n, e.err
}

// matchBudget finds the microbatch count of k's budget.
func matchBudget(k pipeKey) (int, error) {
	t, err := newTiming(k)
	if err != nil {
		return 0, err
	}
	var m optim.Match
	if t.gm == nil {
		m, err = optim.MatchBudget(k.budget, optim.GridDuration(k.family, t.shape))
	} else {
		m, err = optim.MatchBudget(k.budget, func(n int) (float64, error) {
			_, d, err := t.build(n)
			return d, err
		})
	}
	if err != nil {
		return 0, fmt.Errorf("%s with %d stages, budget %g: %w", k.family, k.stages, k.budget, err)
	}
	return m.Microbatches, nil
}
