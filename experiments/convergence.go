package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// TridiagonalMu is μ of the tridiagonal quadratic (docs/reference.md §1.7).
const TridiagonalMu = 0.01

// NewObjective makes the run's problem, cut into stages blocks, from its
// data seed, so every method and step size of a replicate sees the same
// data: the one place an objective's name becomes an objective.
func NewObjective(r Run, stages int) (objectives.Objective, error) {
	d, err := ObjectiveNamed(r.Objective)
	if err != nil {
		return nil, err
	}
	if d.LM {
		r.Stages = stages
		return buildCharLM(r)
	}
	var data *objectives.Dataset
	switch {
	case r.Data != "":
		data, err = objectives.LoadCSV(r.Data, r.Labels)
	case r.Objective == "quadratic":
		data, err = objectives.RandomQuadratic(r.N, r.D, r.DataSeed)
	case r.Objective == "tridiagonal":
		data, err = objectives.TridiagonalQuadratic(r.N, r.D, TridiagonalMu, r.DataSeed)
	default:
		data, err = objectives.RandomLogistic(r.N, r.D, r.DataSeed)
	}
	if err != nil {
		return nil, err
	}
	if d.L2 {
		l2 := objectives.DefaultL2
		if r.L2 != nil {
			l2 = *r.L2
		}
		return objectives.NewLogistic(data, stages, r.Batch, l2, r.Noise)
	}
	if r.Noise != 0 {
		return objectives.NewNoisyLeastSquares(data, stages, r.Batch, r.Noise)
	}
	return objectives.NewLeastSquares(data, stages, r.Batch)
}

// Trained is one convergence run as it ran: the replay's result and what
// it replayed.
type Trained struct {
	*optim.Result
	// TotalMicrobatches is the run's N, matched to the budget when there is
	// one (a sync run's whole iterations).
	TotalMicrobatches int
	// Stages is the objective's block count: the table's stages.
	Stages int
	// Table is the table replayed or timed (nil for RPD's sampled delays).
	Table *pipeline.Table
	// Delta is RPD's delay bound (a measured model's is measured).
	Delta int
	// Overshoot is the run's duration past its budget; for RPD, whose
	// iterations have no time, PipeDream's at the same N.
	Overshoot float64
	// Extra is the simulated time the run lasts after the replay's last
	// event (LocalSGD's last averaging); Time + Extra is its duration.
	Extra float64
}

// Train replays one run: the single entry of a convergence run, for a
// sweep (Execute) and for pipelab train alike. It builds the timelines the
// run replays for this run alone; a sweep's runs share them through the
// runner's cache (Timelines.Train).
func Train(ctx context.Context, r Run) (*Trained, error) { return new(Timelines).Train(ctx, r) }

// Train is Train with the run's timelines taken from, or added to, c.
func (c *Timelines) Train(ctx context.Context, r Run) (*Trained, error) {
	plan, err := c.planFor(r)
	if err != nil {
		return nil, err
	}
	obj, err := NewObjective(r, plan.Stages)
	if err != nil {
		return nil, err
	}
	set := optim.Settings{StepSize: r.Step, Seed: r.Seed, LogEvery: r.LogEvery, LogPoints: r.LogPoints,
		// Stop a long replay as soon as the sweep is cancelled.
		Recorder: optim.RecorderFunc(func(rec optim.Record) error {
			if r.Record != nil {
				if err := r.Record(rec); err != nil {
					return err
				}
			}
			return ctx.Err()
		}),
		Optimizer: r.Optimizer, TargetLoss: r.TargetLoss, Progress: r.Progress, Context: ctx}
	if methodOf(r.Method).Clocked() {
		set.Budget = r.Budget
	}
	run := func(set optim.Settings) (*optim.Result, error) { return optim.Run(obj, plan.method, set) }
	if len(r.Cut) > 0 {
		cut, err := c.cutTime(r)
		if err != nil {
			return nil, err
		}
		plan.Extra = 0 // the run ends at the cut
		plan.Result, err = replayCut(ctx, r, set, run, cut)
		return &plan.Trained, err
	}
	plan.Result, err = run(set)
	if err == nil && r.Budget > 0 && methodOf(r.Method).Clocked() {
		plan.Overshoot = plan.Result.Time + plan.Extra - r.Budget
	}
	return &plan.Trained, err
}

// runConvergence replays one method at one step size and seed.
func (c *Timelines) runConvergence(ctx context.Context, r Run) (*results.Tables, error) {
	res, err := c.Train(ctx, r)
	if err != nil {
		return nil, err
	}
	row := RunRow(r)
	row.TotalMicrobatches = int32(res.TotalMicrobatches)
	if methodOf(r.Method).Replay == optim.ReplaySampled {
		row.Delta = int32(res.Delta)
	}
	row.Outcome = results.OutcomeOK
	if res.Diverged {
		row.Outcome = results.OutcomeDiverged
	}
	row.FinalLoss, row.BlockUpdates = res.FinalLoss, int64(res.BlockUpdates)
	row.TimeToTarget, row.UpdatesToTarget, row.LossAtBudget = res.TimeToTarget, int64(res.UpdatesToTarget), res.LossAtBudget
	row.SimTime = res.Time
	row.HeldOutLoss = heldOutLoss(r, res)
	if !res.Diverged {
		row.SimTime += res.Extra
	}
	if !methodOf(r.Method).Clocked() {
		row.SimTime = math.NaN()
	}
	out := &results.Tables{Runs: []results.Run{row}}
	for _, rec := range res.Records {
		out.Curves = append(out.Curves, results.CurvePoint{RunID: r.ID, Experiment: r.Spec, Time: curveTime(r, rec.Time), BlockUpdates: int64(rec.Updates), Loss: rec.Loss,
			ValidationLoss: rec.ValidationLoss})
	}
	return out, nil
}

// curveTime is a record's simulated time, or NaN (null in the file) for
// RPD, which runs without a timeline: its records count iterations, not
// time (docs/results.md).
func curveTime(r Run, t float64) float64 {
	if !methodOf(r.Method).Clocked() {
		return math.NaN()
	}
	return t
}

// plan is a run's method before its replay.
type plan struct {
	Trained
	method optim.Method
}

// planFor builds the run's method on its timeline: N fixed, or matched to
// the budget; the table checked against the method before anything runs.
func (c *Timelines) planFor(r Run) (plan, error) {
	p := plan{Trained: Trained{Stages: r.Stages}}
	d := methodOf(r.Method)
	opts := optim.MethodOptions{Accumulate: r.Accumulate, PipeMareWarmup: r.PipeMareWarmup, PipeMareDecay: r.PipeMareDecay, DCLambda: r.DCLambda, EFLambda: r.EFLambda}
	switch {
	case d.Async() || d.Replay == optim.ReplayAveraging || (d.Replay == optim.ReplaySampled && r.DelayModel == DelayExact):
		pt, err := c.timelineFor(cmp.Or(r.Family, d.Family), r)
		if err != nil {
			return p, err
		}
		if err := replayable(r.Method, pt.tl.Table); err != nil {
			return p, err
		}
		p.TotalMicrobatches, p.Table, p.Stages = pt.n, pt.tl.Table, pt.tl.Table.Stages()
		if d.Replay == optim.ReplayAveraging {
			// The last complete round's averaging ends the run.
			p.Extra = pt.time - lastEnd(pt)
		}
		if d.Replay == optim.ReplaySampled && r.Budget > 0 {
			p.Overshoot = pt.time - r.Budget
		}
		p.method, err = optim.NewMethod(r.Method, pt.tl, opts)
		if rpd, ok := p.method.(optim.RPD); ok {
			p.Delta = rpd.Delays.Bound()
		}
		return p, err
	case d.Replay == optim.ReplaySampled:
		return c.planRPD(r, p)
	case d.Replay == optim.ReplayFlush:
		pt, err := c.flushTimelineFor(r)
		if err != nil {
			return p, err
		}
		iters, err := syncIterations(r, pt.n, pt.time)
		if err != nil {
			return p, err
		}
		p.TotalMicrobatches, p.Table, p.Stages = iters*pt.n, pt.tl.Table, pt.tl.Table.Stages()
		opts.Iterations = iters
		p.method, err = optim.NewMethod("sync", pt.tl, opts)
		return p, err
	}
	return p, fmt.Errorf("unknown method %q", r.Method)
}

// planRPD is RPD on sampled delays: it gets PipeDream's microbatches
// (matched to the budget when there is one) and N·S iterations unless K is
// given; a measured delay model, PipeDream's timeline too.
func (c *Timelines) planRPD(r Run, p plan) (plan, error) {
	n := r.TotalMicrobatches
	var pd *sim.Timeline
	switch {
	case r.DelayModel != "":
		pt, err := c.timelineFor(DefaultAsyncFamily, r)
		if err != nil {
			return p, err
		}
		n, pd = pt.n, pt.tl
		if r.Budget > 0 {
			p.Overshoot = pt.time - r.Budget
		}
	case r.Budget > 0:
		m, err := c.matchedBudget(timelineKey(DefaultAsyncFamily, r))
		if err != nil {
			return p, err
		}
		n, p.Overshoot = m.Microbatches, m.Overshoot
	}
	opts := optim.MethodOptions{Iterations: r.Updates}
	var err error
	switch {
	case r.DelayTrace != nil:
		if r.DelayTrace.Stages != r.Stages {
			return p, badInputf("a delay trace of %d stages for %d stages", r.DelayTrace.Stages, r.Stages)
		}
		opts.Delays, opts.Iterations = r.DelayTrace, cmp.Or(r.Updates, n*r.Stages)
		if len(r.DelayTrace.Rows) < opts.Iterations {
			return p, badInputf("a delay trace of %d rows for K = %d updates", len(r.DelayTrace.Rows), opts.Iterations)
		}
	default:
		opts.Delays, err = rpdDelays(r, n, pd)
		if err != nil {
			return p, err
		}
	}
	p.TotalMicrobatches, p.Delta = n, opts.Delays.Bound()
	p.method, err = optim.NewMethod("rpd", nil, opts)
	return p, err
}

// replayable refuses a table whose update rule the method cannot replay:
// LocalSGD needs replica averaging, the asynchronous methods update after
// every backward and so replay any table but a replica-averaging one
// (whose replicas they do not keep), and every method needs each
// microbatch to pass every stage. The refusal is bad input.
func replayable(method string, t *pipeline.Table) error {
	switch {
	case t.Routes != nil:
		return badInputf("its microbatches do not all pass every stage; method %s needs one gradient per block from each", method)
	case methodOf(method).Replay == optim.ReplayAveraging && t.Update != pipeline.ReplicaAveraging:
		return badInputf("method localsgd needs a replica-averaging table (kind localsgd), this one's update rule is %v", t.Update)
	case methodOf(method).Replay != optim.ReplayAveraging && t.Update == pipeline.ReplicaAveraging:
		return badInputf("method %s cannot replay a replica-averaging table (use method localsgd)", method)
	}
	return nil
}

// lastEnd is the end of the timeline's last event, which is where a replay's
// clock stops.
func lastEnd(pt *pipeTimeline) float64 {
	var t float64
	for _, e := range pt.tl.Events {
		t = max(t, e.End)
	}
	return t
}

// syncIterations is the number of iterations of a sync run whose
// iterations of perIteration microbatches each last period: with a budget,
// the smallest count whose duration reaches it, by the rule that matches
// PipeDream's and LocalSGD's microbatches (optim.MatchBudget,
// docs/reference.md §1.6), so that the run overshoots the budget by less
// than one iteration and sim_time shows by how much; with a fixed N, the
// fewest whole iterations that consume N microbatches.
func syncIterations(r Run, perIteration int, period float64) (int, error) {
	if perIteration < 1 || !(period > 0) {
		return 0, fmt.Errorf("sync needs iterations of at least one microbatch and positive duration (got %d microbatches, %g)", perIteration, period)
	}
	if r.Budget <= 0 {
		return (r.TotalMicrobatches + perIteration - 1) / perIteration, nil
	}
	m, err := optim.MatchBudget(r.Budget, func(k int) (float64, error) { return float64(k) * period, nil })
	if err != nil {
		return 0, fmt.Errorf("sync with %d stages, budget %g: %w", r.Stages, r.Budget, err)
	}
	return m.Microbatches, nil // here the count of iterations
}
