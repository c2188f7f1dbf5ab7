package experiments

import (
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/experiments/costspec"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// runSchedule prices one schedule family for one shape at the three levels
// of the tabular-schedule comparison (arXiv 2605.24006) through
// sim.Compare, as "pipelab compare" does: the closed form (where the family
// has one), PyTorch's lockstep unit-time check of the communication-lowered
// table (unit time only: it has no other clock), and the event simulation
// under the run's cost model. The lockstep and simulated timelines are kept
// for Gantt charts.
func runSchedule(r Run) (*results.Tables, error) {
	tab, err := pipeline.Generate(r.Family, ComparisonShape(r.Ranks, r.Microbatches, 0))
	if err != nil {
		return nil, err
	}
	var (
		model cost.Model = cost.Unit{}
		mem   cost.Memory
		label = results.CostUnit
		share cost.Stage
	)
	chunks := cost.ChunksPerRank(tab)
	if r.Cost.desc().GPU {
		cfg, err := r.Cost.GPUConfig()
		if err != nil {
			return nil, err
		}
		sm, err := cost.GPUForTable(cfg, tab)
		if err != nil {
			return nil, err
		}
		model, mem, label = sm, sm, results.CostGPU
		if share, err = cost.MeanShare(cfg, tab.Ranks()); err != nil {
			return nil, err
		}
	} else {
		share = cost.UnitShare(tab)
	}
	base := results.ScheduleMetric{RunID: r.ID, Experiment: r.Spec, Family: r.Family, Ranks: int32(tab.Ranks()),
		Microbatches: int32(r.Microbatches), Chunks: int32(chunks), CostModel: label}
	if label == results.CostGPU {
		base.Model, base.GPU, base.Link = presetColumns(r.Cost)
	}
	id := func(level string) string { return scheduleID(r.Cost, tab.Ranks(), r.Microbatches, r.Family, level) }
	// The lockstep grid is timed in unit steps: it is a level under unit
	// time only.
	want := sim.NoLockstep
	if label == results.CostUnit {
		want = sim.LockstepGrid
	}
	lv, simErr := sim.Compare(r.Family, tab, ComparisonShape(tab.Ranks(), r.Microbatches, 0), model, share, want)
	out := &results.Tables{}
	if est := lv.Formula; est != nil {
		m := base
		m.ScheduleID, m.Level = id(results.LevelFormula), results.LevelFormula
		m.Makespan, m.BubbleRatio, m.PeakActivations = est.Makespan, est.Bubble/est.Makespan, lv.FormulaPeak
		out.Schedules = append(out.Schedules, m)
	}
	if want == sim.LockstepGrid {
		// A table PyTorch's lowering cannot order (it reports a malformed
		// schedule) has no lockstep level; the other levels stand.
		if lv.LockstepErr == nil {
			addTimed(out, id(results.LevelLockstep), results.LevelLockstep, base, sim.FromGrid(lv.Grid), nil)
		} else if !errors.Is(lv.LockstepErr, pipeline.ErrMalformed) {
			return nil, fmt.Errorf("lockstep level: %w", lv.LockstepErr)
		}
	}
	if simErr != nil {
		return nil, fmt.Errorf("simulated level: %w", simErr)
	}
	addTimed(out, id(results.LevelSimulated), results.LevelSimulated, base, lv.Timeline, mem)
	return out, nil
}

// ComparisonShape is costspec's: the shape at which the comparison
// generates and prices a family.
var ComparisonShape = costspec.ComparisonShape

// scheduleID names one priced schedule "TIMING_pP-mM_FAMILY_LEVEL", TIMING
// being "unit" or "gpu-MODEL-GPU-LINK": the part before the second "_" is
// the comparison the schedule belongs to (scheduleComparison).
func scheduleID(c CostSpec, ranks, microbatches int, family, level string) string {
	timing := "unit"
	if c.desc().GPU {
		timing = fmt.Sprintf("gpu-%s-%s", c.modelLabel(), c.deviceLabel("-"))
		if c.FlashAttention {
			timing += "-flash"
		}
		if c.Efficiency != 0 {
			timing += fmt.Sprintf("-eff%g", c.Efficiency)
		}
		if c.ExpertParallel > 1 {
			timing += fmt.Sprintf("-ep%d", c.ExpertParallel)
		}
		for _, part := range c.clusterLabel() {
			timing += "-" + part
		}
	}
	return fmt.Sprintf("%s_p%d-m%d_%s_%s", timing, ranks, microbatches, family, level)
}

// scheduleComparison returns the timing and shape part of a schedule id.
func scheduleComparison(id string) string {
	parts := strings.SplitN(id, "_", 3)
	if len(parts) < 3 {
		return id
	}
	return parts[0] + "_" + parts[1]
}

// addTimed adds the metrics and the events of a timed level.
func addTimed(out *results.Tables, id, level string, base results.ScheduleMetric, tl *sim.Timeline, mem cost.Memory) {
	m := base
	m.ScheduleID, m.Level = id, level
	m.Makespan, m.BubbleRatio = sim.Makespan(tl), sim.BubbleRatio(tl)
	m.PeakActivations = float64(slices.Max(sim.PeakActivations(tl))) * cost.StageShare(tl.Table)
	if mem != nil {
		m.PeakMemoryBytes = int64(slices.Max(sim.PeakMemory(tl, mem)))
	}
	out.Schedules = append(out.Schedules, m)
	events := TimelineEvents(id, tl)
	for i := range events {
		events[i].RunID, events[i].Experiment = base.RunID, base.Experiment
	}
	out.Timeline = append(out.Timeline, events...)
}

// TimelineEvents flattens tl into rows of the timeline table under the
// schedule id, in the timeline's order. A row's Index counts the rank's
// timed actions, transfers included, in that order, so (schedule id, rank,
// index) is a key: the simulator's own index is -1 for every transfer.
func TimelineEvents(id string, tl *sim.Timeline) []results.TimelineEvent {
	rows := make([]results.TimelineEvent, len(tl.Events))
	next := map[int]int32{}
	for i, e := range tl.Events {
		rows[i] = results.TimelineEvent{ScheduleID: id, Rank: int32(e.Rank), Index: next[e.Rank],
			Kind: e.Action.Kind.String(), Stage: int32(e.Action.Stage), Microbatch: int32(e.Action.Microbatch),
			Start: e.Start, End: e.End}
		next[e.Rank]++
	}
	return rows
}
