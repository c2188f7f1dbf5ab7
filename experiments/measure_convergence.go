package experiments

import (
	"context"
	"math"
	"slices"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// convergenceMeasure replays optimizers on objectives under schedules
// and records loss curves (measure convergence, the default).
type convergenceMeasure struct{}

func (convergenceMeasure) setDefaults(s *Spec) { s.setConvergenceDefaults() }

func (convergenceMeasure) validate(s *Spec, v validator) error { return s.validateConvergence(v) }

func (convergenceMeasure) expand(s *Spec, add func(Run)) {
	for _, o := range s.Objectives {
		for _, st := range s.Stages {
			for _, m := range s.Methods {
				for _, v := range m.variants(st) {
					points := m.Steps.Points()
					for _, step := range points {
						for _, size := range s.sizes() {
							for _, sigma := range s.noises(o) {
								for rep := 0; rep < s.Seeds; rep++ {
									r := Run{Objective: o, N: s.N, D: s.D, Batch: s.Batch, Noise: sigma, Method: m.Name, Stages: st,
										Step: step, Delta: v.delta, DelayModel: v.delayModel, LocalSteps: v.h, Family: v.family, Microbatches: v.perIter,
										TotalMicrobatches: size.n, Budget: size.budget, Updates: s.Updates, Replicate: rep}
									if s.Cut == CutShortest {
										r.Cut = s.cutRivals(st)
									}
									m.remedy(&r)
									if s.L2 != nil && objectiveOf(o).L2 {
										l2 := *s.L2
										r.L2 = &l2
									}
									r.GridLo, r.GridHi = slices.Min(points), slices.Max(points)
									add(r)
								}
							}
						}
					}
				}
			}
		}
	}
}

func (convergenceMeasure) runBound(s *Spec) float64 {
	var perStage float64
	for _, m := range s.Methods {
		variants := 1.0
		switch methodOf(m.Name).Replay {
		case optim.ReplaySampled:
			variants = float64(max(len(m.Deltas), 1))
		case optim.ReplayAveraging:
			variants = float64(len(m.LocalSteps))
		}
		points := float64(len(m.Steps.Values))
		if len(m.Steps.Pow2) == 2 {
			points = float64(m.Steps.Pow2[1]-m.Steps.Pow2[0]) + 1
		}
		perStage += variants * points
	}
	sizes := float64(len(s.TotalMicrobatches) + len(s.Budget))
	return float64(len(s.Objectives)) * float64(len(s.Stages)) * perStage * sizes * float64(s.Seeds)
}

func (convergenceMeasure) tables(s *Spec, st int, add func(family string, sh pipeline.Shape, key ...any)) {
	type count struct {
		n   int
		key []any
	}
	var counts []count
	for j, n := range s.TotalMicrobatches {
		counts = append(counts, count{n, []any{"total_microbatches", j}})
	}
	if s.Cost.desc().Unit {
		for j, b := range s.Budget {
			counts = append(counts, count{int(math.Min(math.Ceil(b), math.MaxInt32)), []any{"time_budget", j}})
		}
	}
	for i, m := range s.Methods {
		for _, c := range counts {
			switch d := methodOf(m.Name); {
			case d.Async() && d.OwnsTable():
				add(d.Family, pipeline.Shape{Microbatches: c.n}, c.key...)
			case d.Replay == optim.ReplayAveraging:
				for _, h := range m.LocalSteps {
					add(d.Family, pipeline.Shape{Microbatches: c.n, LocalSteps: h}, c.key...)
				}
			}
		}
		if methodOf(m.Name).Replay == optim.ReplayFlush {
			var key []any // the stage count sets it
			if m.Microbatches > 0 {
				key = []any{"methods", i, "microbatches"}
			}
			add(m.Family, pipeline.Shape{Microbatches: m.perIteration(st)}, key...)
		}
	}
}

func (convergenceMeasure) execute(ctx context.Context, c *Timelines, r Run) (*results.Tables, error) {
	return c.runConvergence(ctx, r)
}

func (convergenceMeasure) seconds(r Run) float64 { return replaySeconds(r) }
