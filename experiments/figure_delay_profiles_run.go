package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// DelayProfiles is the measure of per-stage delay
// profiles: for each method (pipedream, or 2bw with its accumulation),
// schedule family (key kinds) and stage count, the delay of each stage's
// own block at its updates over the steady second half of the updates, on
// the family's unit-time timeline with N = total_microbatches_per_stage·S
// (docs/figures.md, delay-profiles).
const DelayProfiles = "delay-profiles"

// profileMethods are the replays a delay-profiles experiment measures.
var profileMethods = []string{"pipedream", "2bw"}

// MeasuredDelayModels are the delay models a spec's deltas may name in
// place of a bound: uniform delays at PipeDream's mean steady-state delay
// (optim.UniformAtMean) and PipeDream's delays replayed stage by stage
// (optim.StageTrace), both measured on the PipeDream timeline the run's
// shape gives.
var MeasuredDelayModels = []string{results.DelayPipeDreamMean, results.DelayPipeDreamProfile}

// validateDelayProfiles checks a delay-profiles experiment: the methods
// are pipedream or 2bw (2bw's accumulate at least 1, or 0 for S), and every
// family generates a table of exactly S stages at every stage count (one
// stage per rank, or V per rank on S/V ranks) that the asynchronous replay
// can follow.
func (s *Spec) validateDelayProfiles(v validator) error {
	if s.TotalMicrobatchesPerStage < 1 {
		return v.fail("must be at least 1", "total_microbatches_per_stage")
	}
	for i, m := range s.Methods {
		if !slices.Contains(profileMethods, m.Name) {
			return v.fail(fmt.Sprintf("delay profiles measure %s, not %q", strings.Join(profileMethods, " and "), m.Name), "methods", i, "name")
		}
		if m.Accumulate < 0 || (m.Accumulate > 0 && !methodOf(m.Name).Takes(optim.ParamAccumulate)) {
			return v.fail("only 2bw accumulates, at least 1 microbatch (0: S)", "methods", i, "accumulate")
		}
		if len(m.Steps.Values) > 0 || len(m.Steps.Pow2) > 0 || len(m.Deltas) > 0 || m.Family != "" || m.Optimizer.Name != "" {
			return v.fail("a delay profile takes a method's name and accumulate only (kinds names the tables)", "methods", i)
		}
	}
	for i, f := range s.Families {
		for _, st := range s.Stages {
			if _, err := profileTable(f, st, 2*st); err != nil {
				return v.fail(err.Error(), "kinds", i)
			}
		}
	}
	return nil
}

// profileTable generates family's table of exactly stages stages and n
// microbatches: on stages ranks, or, for a family that puts V stages on a
// rank, on stages/V ranks. Its microbatches must pass every stage and its
// updates be asynchronous.
func profileTable(family string, stages, n int) (*pipeline.Table, error) {
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: stages, Microbatches: n, LocalSteps: 1})
	if err != nil {
		return nil, fmt.Errorf("%s does not generate a table of %d stages: %w", family, stages, err)
	}
	if got := tab.Stages(); got != stages {
		v := got / stages
		if v < 2 || got != v*stages || stages%v != 0 {
			return nil, fmt.Errorf("%s puts %d stages on %d ranks, which no rank count turns into %d stages", family, got, stages, stages)
		}
		if tab, err = pipeline.Generate(family, pipeline.Shape{Ranks: stages / v, Microbatches: n, LocalSteps: 1}); err != nil {
			return nil, fmt.Errorf("%s does not generate %d stages on %d ranks: %w", family, stages, stages/v, err)
		}
	}
	switch {
	case tab.Stages() != stages:
		return nil, fmt.Errorf("%s gives %d stages, not %d", family, tab.Stages(), stages)
	case tab.Update == pipeline.ReplicaAveraging:
		return nil, fmt.Errorf("%s averages replicas; its delays are not an asynchronous replay's", family)
	case tab.Routes != nil:
		return nil, fmt.Errorf("%s sends microbatches on routes that skip stages", family)
	}
	return tab, nil
}

// profileTimeline times the family's table at unit cost: the grid itself
// for PipeDream's asynchronous grid (every action sits in the step it
// runs, as the convergence runs time it), the event simulation otherwise
// (as pipelab delays --kind does).
func profileTimeline(family string, stages, n int) (*sim.Timeline, error) {
	tab, err := profileTable(family, stages, n)
	if err != nil {
		return nil, err
	}
	if family == DefaultAsyncFamily {
		return sim.FromGrid(tab), nil
	}
	return sim.Simulate(tab, cost.Unit{}, sim.Options{})
}

// runDelayProfiles measures one method's per-stage delays on one family's
// timeline: a row per stage, over the steady window.
func runDelayProfiles(r Run) (*results.Tables, error) {
	tl, err := profileTimeline(r.Family, r.Stages, r.TotalMicrobatches)
	if err != nil {
		return nil, err
	}
	var stats []optim.DelayStats
	switch r.Method {
	case "2bw":
		a := r.Accumulate
		if a == 0 {
			a = r.Stages // TwoBW's default
		}
		stats, err = optim.TwoBWStageDelays(tl, a, optim.Steady)
	default:
		var p *optim.DelayProfile
		if p, err = optim.StageDelays(tl, optim.Steady); err == nil {
			stats = p.PerStage
		}
	}
	if err != nil {
		return nil, err
	}
	out := &results.Tables{}
	for s, st := range stats {
		out.Delays = append(out.Delays, results.DelayStat{
			Method: r.Method, Kind: r.Family, Stages: int32(r.Stages), TotalMicrobatches: int32(r.TotalMicrobatches),
			Window: results.WindowSteady, Stage: int32(s), TimeSteps: int64(sim.Makespan(tl)),
			Rows: int64(st.Rows), Max: int64(st.Max), Mean: st.Mean, P10: st.P10,
		})
	}
	return out, nil
}

// rpdDelays is the delay model of an RPD run with n microbatches: the
// paper's uniform delays up to the run's δ, or a model measured on pd,
// PipeDream's timeline of the run's shape: uniform at its mean delay over
// the steady window (every stage's block, optim.StageDelays' Total), or its
// delays replayed stage by stage.
func rpdDelays(r Run, n int, pd *sim.Timeline) (optim.DelayModel, error) {
	switch r.DelayModel {
	case "":
		return optim.Uniform{Stages: r.Stages, Delta: r.Delta, Microbatches: n}, nil
	case results.DelayPipeDreamMean, results.DelayPipeDreamProfile:
		return optim.MeasuredDelayModel(r.DelayModel, pd, n)
	}
	return nil, fmt.Errorf("unknown delay model %q (known: %s)", r.DelayModel, strings.Join(MeasuredDelayModels, ", "))
}

// delayRowBytes is the memory of one row of optim.Delays' table beside its
// delays: the row (stage, microbatch, slice header) and StageTrace's copy
// of it.
const delayRowBytes = 2 * 40

// checkDelayTables refuses, by arithmetic, an RPD run whose measured delay
// model would hold more than the memory limit: PipeDream's N·S delay rows
// of S delays each (N the microbatches, or a unit-time budget's bound).
func (s *Spec) checkDelayTables(v validator) error {
	for i, m := range s.Methods {
		if methodOf(m.Name).Replay != optim.ReplaySampled || !slices.ContainsFunc(m.Deltas, func(d Delta) bool { return d.Model != "" }) {
			continue
		}
		var counts []float64
		for _, n := range s.TotalMicrobatches {
			counts = append(counts, float64(n))
		}
		if s.Cost.desc().Unit {
			for _, b := range s.Budget {
				counts = append(counts, math.Ceil(b))
			}
		}
		for _, st := range s.Stages {
			for _, n := range counts {
				rows := n * float64(st)
				what := fmt.Sprintf("PipeDream's %.0f delay rows at S = %d", rows, st)
				if err := budget.Check(what, rows*(float64(st)*8+delayRowBytes)); err != nil {
					return v.fail(err.Error(), "methods", i, "deltas")
				}
			}
		}
	}
	return nil
}
