package main

import (
	"fmt"
	"math"

	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// trainPlan is what a train run replays: the method with its timeline,
// the objective's stage count, and what the report says of them.
type trainPlan struct {
	method    optim.Method
	stages    int
	table     string  // the family or file replayed ("" for rpd's sampled delays)
	cost      string  // the clock: "unit", or the cost model's name
	overshoot float64 // past the time budget
}

// plan builds the method and its timeline, matching the time budget if
// one was given, and refuses a table whose update rule the method cannot
// replay before anything runs.
func (f *trainFlags) plan() (trainPlan, error) {
	p := trainPlan{stages: f.stages, cost: "unit"}
	if f.method == "rpd" && f.delays != "exact" {
		n := f.microbatches
		if f.set["time-budget"] {
			m, err := optim.MatchBudget(f.timeBudget, optim.GridDuration("pipedream", pipeline.Shape{Ranks: f.stages}))
			if err != nil {
				return p, err
			}
			n, p.overshoot = m.Microbatches, m.Overshoot
		}
		m, err := f.planRPD(n)
		p.method = m
		return p, err
	}
	if f.method == "sync" {
		return f.planSync(p)
	}
	tl, name, err := f.asyncTimeline()
	if err != nil {
		return p, err
	}
	p.stages, p.table, p.cost = tl.Table.Stages(), name, f.costName(tl.Table)
	if err := replayable(f.method, tl.Table); err != nil {
		return p, unreplayable{fmt.Errorf("%s: %w", name, err)}
	}
	if f.set["time-budget"] && f.method == "rpd" {
		p.overshoot = sim.Makespan(tl) - f.timeBudget
	}
	p.method, err = f.asyncMethod(tl)
	return p, err
}

// asyncMethod returns the method of the flags on timeline tl.
func (f *trainFlags) asyncMethod(tl *sim.Timeline) (optim.Method, error) {
	switch f.method {
	case "pipedream":
		return optim.PipeDream{Timeline: tl}, nil
	case "pd-nostash":
		return optim.PipeDreamNoStash{Timeline: tl}, nil
	case "2bw":
		return optim.TwoBW{Timeline: tl, Accumulate: f.accumulate}, nil
	case "pipemare":
		return optim.PipeMare{Timeline: tl, Warmup: f.pipemareWarmup, Decay: f.pipemareDecay}, nil
	case "predict":
		return optim.Predict{Timeline: tl}, nil
	case "dc":
		return optim.DelayCompensation{Timeline: tl, Lambda: f.dcLambda}, nil
	case "localsgd":
		return optim.LocalSGD{Timeline: tl}, nil
	}
	exact, err := optim.Delays(tl)
	return optim.RPD{Delays: exact}, err
}

// unreplayable is a table the method cannot replay: bad input, found
// before anything runs.
type unreplayable struct{ error }

func (u unreplayable) Unwrap() error { return u.error }

// replayable refuses a table whose update rule the method cannot replay:
// LocalSGD needs replica averaging, the asynchronous methods update after
// every backward and so replay any table but a replica-averaging one
// (whose replicas they do not keep), and every method needs each
// microbatch to pass every stage.
func replayable(method string, t *pipeline.Table) error {
	switch {
	case t.Routes != nil:
		return fmt.Errorf("its microbatches do not all pass every stage; --method %s needs one gradient per block from each", method)
	case method == "localsgd" && t.Update != pipeline.ReplicaAveraging:
		return fmt.Errorf("--method localsgd needs a replica-averaging table (--kind localsgd), this one's update rule is %v", t.Update)
	case method != "localsgd" && t.Update == pipeline.ReplicaAveraging:
		return fmt.Errorf("--method %s cannot replay a replica-averaging table (use --method localsgd)", method)
	}
	return nil
}

// family is the generated family the run replays.
func (f *trainFlags) family() string {
	switch {
	case f.kind != "":
		return f.kind
	case f.method == "localsgd":
		return "localsgd"
	case f.method == "sync":
		return "1f1b"
	}
	return "pipedream"
}

// onGrid reports whether family's timeline is its unit-time grid itself,
// as the paper's timelines are (every action in the step it runs; §1.2,
// §1.5): unit costs and a family that places its actions so.
func (f *trainFlags) onGrid(family string) bool {
	return f.costs.kind() == "unit" && f.schedule == "" && (family == "pipedream" || family == "localsgd" || f.kind == "")
}

// generate builds the family's table with n microbatches (the value of
// --microbatches, or of --microbatches-per-iteration for sync).
func (f *trainFlags) generate(family string, n int) (*pipeline.Table, error) {
	sh := pipeline.Shape{Ranks: f.stages, Microbatches: n}
	if family == "localsgd" {
		sh.Replicas, sh.LocalSteps = f.replicas, f.localSteps
	}
	if err := guardShape(family, sh, replayCellBytes); err != nil {
		return nil, err
	}
	t, err := pipeline.Generate(family, sh)
	if err != nil {
		flag := "--microbatches"
		if f.method == "sync" {
			flag = "--microbatches-per-iteration"
		}
		return nil, unreplayable{fmt.Errorf("--kind %s --stages %d %s %d: %w", family, f.stages, flag, n, err)}
	}
	return t, nil
}

// timed returns the timeline of t: its grid, or the event simulation
// under the flags' cost model.
func (f *trainFlags) timed(t *pipeline.Table, grid bool) (*sim.Timeline, error) {
	if grid {
		return sim.FromGrid(t), nil
	}
	pr, err := f.costs.pricingFor(t)
	if err != nil {
		return nil, err
	}
	return sim.Simulate(t, pr.cost, sim.Options{})
}

// costName names the clock of table t for the report.
func (f *trainFlags) costName(t *pipeline.Table) string {
	if f.costs.kind() == "unit" {
		return "unit"
	}
	pr, err := f.costs.pricingFor(t)
	if err != nil {
		return f.costs.kind()
	}
	return pr.name
}

// asyncTimeline returns the timeline an asynchronous method replays: the
// file's, or the family's with N microbatches (matched to the budget).
func (f *trainFlags) asyncTimeline() (*sim.Timeline, string, error) {
	if f.schedule != "" {
		t, err := readScheduleFile(f.schedule)
		if err != nil {
			return nil, "", err
		}
		tl, err := f.timed(t, false)
		return tl, f.schedule, err
	}
	family := f.family()
	grid := f.onGrid(family)
	n := f.microbatches
	if f.set["time-budget"] {
		duration := optim.GridDuration(family, pipeline.Shape{Ranks: f.stages, Replicas: f.replicas, LocalSteps: f.localSteps})
		var refused error // the family's refusal of the last count tried
		if !grid {
			duration = func(n int) (float64, error) {
				t, err := f.generate(family, n)
				if err != nil {
					// Too few microbatches for the family (DualPipeV needs
					// 2P): such a count does not reach the budget.
					refused = err
					return 0, nil
				}
				tl, err := f.timed(t, false)
				if err != nil {
					return 0, err
				}
				return sim.Makespan(tl), nil
			}
		}
		m, err := optim.MatchBudget(f.timeBudget, duration)
		if err != nil && refused != nil {
			err = refused
		}
		if err != nil {
			return nil, "", err
		}
		n = m.Microbatches
	}
	t, err := f.generate(family, n)
	if err != nil {
		return nil, "", err
	}
	tl, err := f.timed(t, grid)
	return tl, family, err
}

// planRPD returns RPD with uniform delays or a trace file, K = N·S.
func (f *trainFlags) planRPD(n int) (optim.Method, error) {
	switch f.delays {
	case "uniform":
		return optim.RPD{Delays: optim.Uniform{Stages: f.stages, Delta: f.delta, Microbatches: n}}, nil
	case optim.DelayModelPipeDreamMean, optim.DelayModelPipeDreamProfile:
		// Measured on PipeDream's unit-time timeline of the same N, as a
		// sweep's deltas of these names are (docs/figures.md, delay-profiles).
		t, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: f.stages, Microbatches: n})
		if err != nil {
			return nil, err
		}
		model, err := optim.MeasuredDelayModel(f.delays, sim.FromGrid(t), n)
		return optim.RPD{Delays: model}, err
	}
	trace, err := optim.LoadDelayTrace(f.delays)
	if err != nil {
		return nil, badInput{fmt.Errorf("--delays: %w", err)}
	}
	if trace.Stages != f.stages {
		return nil, badInput{fmt.Errorf("--delays: %s: %d delays per line, but --stages is %d", f.delays, trace.Stages, f.stages)}
	}
	if k := n * f.stages; len(trace.Rows) < k {
		return nil, badInput{fmt.Errorf("--delays: %s: %d delay rows, but the run has K = N·S = %d updates (--microbatches %d, --stages %d)", f.delays, len(trace.Rows), k, n, f.stages)}
	}
	return optim.RPD{Delays: trace, Iterations: n * f.stages}, nil
}

// planSync returns synchronous SGD on a flush iteration: the family's
// with --microbatches-per-iteration, or the file's.
func (f *trainFlags) planSync(p trainPlan) (trainPlan, error) {
	var t *pipeline.Table
	var err error
	family := f.family()
	if f.schedule != "" {
		t, err = readScheduleFile(f.schedule)
		family = f.schedule
	} else {
		t, err = f.generate(family, f.flushMicrobatches)
	}
	if err != nil {
		return p, err
	}
	if t.Update != pipeline.Flush {
		return p, unreplayable{fmt.Errorf("%s: --method sync needs a flush schedule (gpipe, 1f1b, zb-h1, ...), this table's update rule is %v", family, t.Update)}
	}
	if t.Routes != nil {
		return p, unreplayable{fmt.Errorf("%s: %w", family, replayable("sync", t))}
	}
	tl, err := f.timed(t, f.onGrid(family) && f.schedule == "")
	if err != nil {
		return p, err
	}
	perIter := t.Microbatches
	iters := (f.microbatches + perIter - 1) / perIter
	if f.set["time-budget"] {
		iters = int(math.Ceil(f.timeBudget / sim.Makespan(tl)))
	}
	p.method, p.stages, p.table, p.cost = optim.Sync{Timeline: tl, Iterations: iters}, t.Stages(), family, f.costName(t)
	return p, nil
}
