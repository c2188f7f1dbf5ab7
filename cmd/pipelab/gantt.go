package main

import (
	"fmt"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
)

// writeGantt draws tl to path with the one Gantt renderer (results.Gantt),
// titled with the schedule's family and shape and the cost model that timed
// it (costName names model, GPU, link and clock), the time axis in unit.
func writeGantt(path string, tl *sim.Timeline, costName, unit string) error {
	family, ranks, stages, mbs := "schedule", 0, 0, 0
	if t := tl.Table; t != nil {
		if t.Family != "" {
			family = t.Family
		}
		ranks, stages, mbs = t.Ranks(), t.Stages(), t.Microbatches
	}
	g := results.Gantt{
		Title:  fmt.Sprintf("%s: %d ranks, %d stages, %d microbatches; %s", family, ranks, stages, mbs, costName),
		Unit:   unit,
		Events: experiments.TimelineEvents("", tl),
	}
	return g.Plot(path)
}
