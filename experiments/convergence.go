package experiments

import (
	"context"
	"fmt"
	"math"

	"pipelab/objectives"
	"pipelab/optim"
	"pipelab/pipeline/sim"
	"pipelab/results"
)

// TridiagonalMu is μ of the tridiagonal quadratic (docs/reference.md §1.7).
const TridiagonalMu = 0.01

// buildObjective makes the run's problem from its data seed, so every
// method and step size of a replicate sees the same data.
func buildObjective(r Run) (objectives.Objective, error) {
	switch r.Objective {
	case "quadratic":
		data, err := objectives.RandomQuadratic(r.N, r.D, r.DataSeed)
		if err != nil {
			return nil, err
		}
		return objectives.NewLeastSquares(data, r.Stages, r.Batch)
	case "tridiagonal":
		data, err := objectives.TridiagonalQuadratic(r.N, r.D, TridiagonalMu, r.DataSeed)
		if err != nil {
			return nil, err
		}
		return objectives.NewLeastSquares(data, r.Stages, r.Batch)
	case "logistic":
		data, err := objectives.RandomLogistic(r.N, r.D, r.DataSeed)
		if err != nil {
			return nil, err
		}
		return objectives.NewLogistic(data, r.Stages, r.Batch, objectives.DefaultL2, r.Noise)
	case "charlm":
		return buildCharLM(r)
	}
	return nil, fmt.Errorf("unknown objective %q", r.Objective)
}

// runConvergence replays one method at one step size and seed.
func runConvergence(ctx context.Context, r Run) (*results.Tables, error) {
	obj, err := buildObjective(r)
	if err != nil {
		return nil, err
	}
	method, n, extra, err := methodFor(r)
	if err != nil {
		return nil, err
	}
	row := runRow(r)
	row.Microbatches = int32(n)
	if rpd, ok := method.(optim.RPD); ok {
		row.Delta = int32(rpd.Delays.Bound()) // a measured model's bound is measured
	}
	set := optim.Settings{StepSize: r.Step, Seed: r.Seed, LogEvery: r.LogEvery, LogPoints: r.LogPoints,
		// Stop a long replay as soon as the sweep is cancelled.
		Recorder:  optim.RecorderFunc(func(optim.Record) error { return ctx.Err() }),
		Optimizer: r.Optimizer, TargetLoss: r.TargetLoss}
	if r.Method != "rpd" {
		set.Budget = r.Budget
	}
	run := func(set optim.Settings) (*optim.Result, error) { return optim.Run(obj, method, set) }
	var res *optim.Result
	if len(r.Cut) > 0 {
		cut, err := cutTime(r)
		if err != nil {
			return nil, err
		}
		res, err = replayCut(ctx, r, set, run, cut)
		extra = 0 // the run ends at the cut
		if err != nil {
			return nil, err
		}
	} else if res, err = run(set); err != nil {
		return nil, err
	}
	row.Outcome = results.OutcomeOK
	if res.Diverged {
		row.Outcome = results.OutcomeDiverged
	}
	row.FinalLoss, row.BlockUpdates = res.FinalLoss, int64(res.BlockUpdates)
	row.TimeToTarget, row.UpdatesToTarget, row.LossAtBudget = res.TimeToTarget, int64(res.UpdatesToTarget), res.LossAtBudget
	row.SimTime = res.Time
	if !res.Diverged {
		row.SimTime += extra
	}
	if r.Method == results.MethodRPD {
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
	if r.Method == results.MethodRPD {
		return math.NaN()
	}
	return t
}

// methodFor returns the run's method with its microbatch count (matched to
// the budget when there is one) and the simulated time the run lasts after
// the replay's last event.
func methodFor(r Run) (m optim.Method, microbatches int, extra float64, err error) {
	switch r.Method {
	case "pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc", "ef":
		family := DefaultAsyncFamily
		if r.Family != "" {
			family = r.Family
		}
		pt, err := timelineFor(family, r)
		if err != nil {
			return nil, 0, 0, err
		}
		return remedyOn(r, pt.tl), pt.n, 0, nil
	case "localsgd":
		pt, err := timelineFor("localsgd", r)
		if err != nil {
			return nil, 0, 0, err
		}
		// The last complete round's averaging ends the run.
		return optim.LocalSGD{Timeline: pt.tl}, pt.n, pt.time - lastEnd(pt), nil
	case "rpd":
		// RPD gets PipeDream's microbatches (matched to the budget when
		// there is one) and N·S iterations unless K is given; a measured
		// delay model, PipeDream's timeline too.
		n := r.Microbatches
		var pd *sim.Timeline
		switch {
		case r.DelayModel != "":
			pt, err := timelineFor("pipedream", r)
			if err != nil {
				return nil, 0, 0, err
			}
			n, pd = pt.n, pt.tl
		case r.Budget > 0:
			var err error
			if n, err = microbatchesFor("pipedream", r); err != nil {
				return nil, 0, 0, err
			}
		}
		model, err := rpdDelays(r, n, pd)
		return optim.RPD{Delays: model, Iterations: r.Updates}, n, 0, err
	case "sync":
		pt, err := flushTimelineFor(r)
		if err != nil {
			return nil, 0, 0, err
		}
		iters, err := syncIterations(r, pt.time)
		if err != nil {
			return nil, 0, 0, err
		}
		return optim.Sync{Timeline: pt.tl, Iterations: iters}, iters * pt.n, 0, nil
	}
	return nil, 0, 0, fmt.Errorf("unknown method %q", r.Method)
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
// iterations each last period: with a budget, the smallest count whose
// duration reaches it, by the rule that matches PipeDream's and LocalSGD's
// microbatches (optim.MatchBudget, docs/reference.md §1.6), so that the run
// overshoots the budget by less than one iteration and sim_time shows by
// how much; with a fixed N, the fewest whole iterations that consume N
// microbatches.
func syncIterations(r Run, period float64) (int, error) {
	if r.PerIteration < 1 || !(period > 0) {
		return 0, fmt.Errorf("sync needs iterations of at least one microbatch and positive duration (got %d microbatches, %g)", r.PerIteration, period)
	}
	if r.Budget <= 0 {
		return (r.Microbatches + r.PerIteration - 1) / r.PerIteration, nil
	}
	m, err := optim.MatchBudget(r.Budget, func(k int) (float64, error) { return float64(k) * period, nil })
	if err != nil {
		return 0, fmt.Errorf("sync with %d stages, budget %g: %w", r.Stages, r.Budget, err)
	}
	return m.Microbatches, nil // here the count of iterations
}

// remedyOn returns the run's asynchronous method (PipeDream or one of its
// remedies) replaying tl.
func remedyOn(r Run, tl *sim.Timeline) optim.Method {
	switch r.Method {
	case "pd-nostash":
		return optim.PipeDreamNoStash{Timeline: tl}
	case "2bw":
		return optim.TwoBW{Timeline: tl, Accumulate: r.Accumulate}
	case "pipemare":
		return optim.PipeMare{Timeline: tl, Warmup: r.PipeMareWarmup, Decay: r.PipeMareDecay}
	case "predict":
		return optim.Predict{Timeline: tl}
	case "dc":
		return optim.DelayCompensation{Timeline: tl, Lambda: r.DCLambda}
	case "ef":
		return optim.ErrorFeedback{Timeline: tl, Accumulate: r.Accumulate, Lambda: r.EFLambda}
	}
	return optim.PipeDream{Timeline: tl}
}
