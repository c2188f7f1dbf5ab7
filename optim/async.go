package optim

import (
	"math"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// asyncRule is what tells the asynchronous replays of a timeline apart:
// which weights a forward and a backward read, how the gradient is
// corrected, and when updates land. The zero value is PipeDream with
// weight stashing.
type asyncRule struct {
	noStash    bool    // the backward reads the block as it finds it, not the forward's
	accumulate int     // 2BW's A: one update per group of A microbatches (0, 1: every backward)
	predict    bool    // forwards read the block predicted at their backward's time
	dcLambda   float64 // DC-ASGD's λ, or λ0 of its adaptive variant (0: no compensation)
	dcAdaptive bool    // DC-ASGD-a: λ0 over the root of a running mean square of the gradient
	pipemare   bool    // PipeMare's rescheduling and discrepancy correction
	warmup     int     // PipeMare's T, at least 1
	decay      float64 // PipeMare's EMA factor of δ
	// errorFeedback adds efLambda times the difference of the stage's
	// last two optimizer updates to its move (ErrorFeedback).
	errorFeedback bool
	efLambda      float64
	// pipelined takes the gradients of a Pipelined objective through its
	// passes even when every backward reads the stash (tests: the path
	// the no-stash rules take, which then equals the full gradient's).
	pipelined bool
}

// asyncReplay is the state of one asynchronous replay.
type asyncReplay struct {
	r    *run
	rule asyncRule
	ps   *passes
	x    []float64
	n    int // microbatches

	done   []int       // per stage: updates applied so far
	atF    map[int]int // PipeMare: (m, s) → the stage's updates when F(m, s) read its block
	ahead  map[int]int // predict: (m, s) → the stage's updates between F(m, s) and its backward
	acc    [][]float64 // 2BW: per stage, the sum of the group's gradients
	groupN []int       // 2BW: per stage, gradients in acc
	delta  [][]float64 // PipeMare: per stage, the EMA of its weight changes
	read   []float64   // a backward's or a forward's own block, longest block's size
	before []float64   // PipeMare: the block before an update
	u      []float64   // predict: the stage's update direction; ef: the correction
	efPrev [][]float64 // ef: per stage, the optimizer's last update (nil before the first)
	meanSq [][]float64 // dc-a: per stage, the running mean square of the gradient
	cur    func() []float64
}

// replayAsync replays tl under rule: events in replay order (start time,
// then stage); a forward stashes the block it reads; the weight gradient
// of a microbatch (B, or W of a split backward; I only lets the gradient
// flow on) is taken as the rule says and applied to the stage's current
// block by the run's optimizer.
func replayAsync(r *run, tl *sim.Timeline, rule asyncRule) error {
	backwards, microbatches, err := checkTimeline(tl, r.stages)
	if err != nil {
		return err
	}
	r.res.Microbatches = microbatches
	a := &asyncReplay{r: r, rule: rule, n: microbatches, x: r.obj.Init(),
		done: make([]int, r.stages), atF: map[int]int{}}
	a.cur = func() []float64 { return a.x }
	a.read, a.before, a.u = make([]float64, r.maxBlock()), make([]float64, r.maxBlock()), make([]float64, r.maxBlock())
	updates := backwards
	if rule.accumulate > 1 {
		a.acc, a.groupN = make([][]float64, r.stages), make([]int, r.stages)
		for s := range a.acc {
			a.acc[s] = make([]float64, r.blockLen(s))
		}
		updates = r.stages * ((microbatches + rule.accumulate - 1) / rule.accumulate)
	}
	if rule.errorFeedback {
		a.efPrev = make([][]float64, r.stages)
	}
	if rule.dcAdaptive {
		a.meanSq = make([][]float64, r.stages)
		for s := range a.meanSq {
			a.meanSq[s] = make([]float64, r.blockLen(s))
		}
	}
	if rule.pipemare {
		a.delta = make([][]float64, r.stages)
		for s := range a.delta {
			a.delta[s] = make([]float64, r.blockLen(s))
		}
	}
	events := replayOrder(tl)
	if rule.predict {
		a.ahead = lookahead(events, r.stages)
		r.wantDirection = true
	}
	if err := r.begin(updates, a.x, 1); err != nil {
		return err
	}
	a.ps = newPasses(r)
	if pl, ok := r.obj.(objectives.Pipelined); ok && a.ps.sw == nil && (rule.noStash || rule.pipemare || rule.pipelined) {
		if err := a.ps.pipelined(pl, events); err != nil {
			return err
		}
	}
	for _, e := range events {
		act := e.Action
		switch act.Kind {
		case pipeline.Forward:
			if err := a.forward(act.Microbatch, act.Stage); err != nil {
				return err
			}
		case pipeline.BackwardInput:
			if err := a.ps.input(act.Microbatch, act.Stage, a.backwardRead(act.Microbatch, act.Stage)); err != nil {
				return err
			}
		case pipeline.Backward, pipeline.BackwardWeight:
			if err := a.backward(act.Microbatch, act.Stage, e.End); err != nil || r.stopped {
				return err
			}
		}
	}
	return r.finish(endTime(tl), a.x)
}

// key indexes per-(microbatch, stage) maps.
func (a *asyncReplay) key(m, s int) int { return m*a.r.stages + s }

// forward stashes the block F(m, s) reads: the current block, or under
// weight prediction ŵ = w − τ·γ·u, τ the stage's updates that land before
// this microbatch's backward and u the optimizer's update direction.
func (a *asyncReplay) forward(m, s int) error {
	xs := a.r.block(a.x, s)
	if a.rule.pipemare {
		a.atF[a.key(m, s)] = a.done[s]
	}
	if !a.rule.predict {
		return a.ps.forward(m, s, xs)
	}
	tau := float64(a.ahead[a.key(m, s)])
	u := a.u[:len(xs)]
	a.r.opt.direction(u, 0, s)
	gamma := a.r.opt.rate(a.done[s] + 1)
	w := a.read[:len(xs)]
	for j, v := range xs {
		w[j] = v - tau*gamma*u[j]
	}
	return a.ps.forward(m, s, w)
}

// backwardRead returns the block a backward of microbatch m on stage s
// reads now: nil (the stash), the current block without stashing, or
// PipeMare's w − τ·δ with τ the stage's updates since F(m, s).
func (a *asyncReplay) backwardRead(m, s int) []float64 {
	xs := a.r.block(a.x, s)
	switch {
	case a.rule.pipemare:
		tau := float64(a.done[s] - a.atF[a.key(m, s)])
		read := a.read[:len(xs)]
		for j, v := range xs {
			read[j] = v - tau*a.delta[s][j]
		}
		return read
	case a.rule.noStash:
		return xs
	}
	return nil
}

// backward takes the weight gradient of microbatch m on stage s and
// updates the stage (or, under 2BW, adds it to the stage's group).
func (a *asyncReplay) backward(m, s int, end float64) error {
	r := a.r
	xs := r.block(a.x, s)
	read := a.backwardRead(m, s) // nil: the stashed block
	tau := 0
	if a.rule.pipemare {
		k := a.key(m, s)
		tau = a.done[s] - a.atF[k]
		delete(a.atF, k)
	}
	var stash []float64
	if a.rule.dcLambda != 0 {
		stash = a.ps.stashed(m, s)
		copy(a.read[:len(xs)], stash) // the pass may be freed by backward
		stash = a.read[:len(xs)]
	}
	g, err := a.ps.backward(m, s, read, r.noise)
	if err != nil {
		return err
	}
	switch {
	case stash != nil && a.rule.dcAdaptive:
		// DC-ASGD-a: the mean square first takes this gradient, then
		// g + λ0/√(ms + ε)·g⊙g⊙(w_now − w_stash).
		ms := a.meanSq[s]
		for j, v := range g {
			ms[j] = dcMeanSquareDecay*ms[j] + (1-dcMeanSquareDecay)*v*v
			g[j] = v + a.rule.dcLambda/math.Sqrt(ms[j]+dcEpsilon)*v*v*(xs[j]-stash[j])
		}
	case stash != nil:
		// DC-ASGD: g + λ·g⊙g⊙(w_now − w_stash).
		for j, v := range g {
			g[j] = v + a.rule.dcLambda*v*v*(xs[j]-stash[j])
		}
	}
	if a.rule.accumulate > 1 {
		if g = a.group(m, s, g); g == nil {
			return nil
		}
	}
	scale := 1.0
	if a.rule.pipemare || a.rule.errorFeedback {
		copy(a.before[:len(xs)], xs)
	}
	if a.rule.pipemare {
		p := 1 - min(float64(a.done[s])/float64(a.rule.warmup), 1)
		scale = math.Pow(float64(max(tau, 1)), -p)
	}
	r.landing(end, a.cur)
	r.opt.step(xs, g, 0, s, 1, scale)
	if a.rule.errorFeedback {
		a.feedback(s, xs)
	}
	a.done[s]++
	if a.rule.pipemare {
		d := a.rule.decay
		for j, v := range xs {
			a.delta[s][j] = d*a.delta[s][j] + (1-d)*(v-a.before[j])
		}
	}
	return r.advance(1, end, a.cur)
}

// group adds g to stage s's 2BW group and returns the group's mean
// gradient when m completes it (the last microbatch of its group of A, or
// of the run), nil otherwise.
func (a *asyncReplay) group(m, s int, g []float64) []float64 {
	acc := a.acc[s]
	for j, v := range g {
		acc[j] += v
	}
	a.groupN[s]++
	A := a.rule.accumulate
	size := min(A, a.n-(m/A)*A)
	if a.groupN[s] < size {
		return nil
	}
	for j := range acc {
		g[j] = acc[j] / float64(size)
	}
	clear(acc)
	a.groupN[s] = 0
	return g
}

// lookahead returns, for every forward F(m, s) of events (in replay
// order), the number of weight-gradient backwards of stage s between it
// and the backward of microbatch m on stage s: the stage's own updates
// that land while m is in flight there.
func lookahead(events []sim.Event, stages int) map[int]int {
	count := make([]int, stages)
	atF := map[int]int{}
	out := map[int]int{}
	for _, e := range events {
		a := e.Action
		k := a.Microbatch*stages + a.Stage
		switch a.Kind {
		case pipeline.Forward:
			atF[k] = count[a.Stage]
		case pipeline.Backward, pipeline.BackwardWeight:
			out[k] = count[a.Stage] - atF[k]
			count[a.Stage]++
		}
	}
	return out
}
