package main

import (
	"fmt"

	"pipelab/internal/budget"
	"pipelab/pipeline"
	"pipelab/pipeline/tune"
)

// Peak memory of each command per cell of its generated table
// (pipeline.CellBound), rounded up from the peak resident set measured with
// /usr/bin/time -f %M at P = 16, M = 20000 (640768 cells for 1f1b and
// pipedream, 1.92 million for zb-v):
//
//	schedule --kind 1f1b                 117 MB   183 B/cell
//	simulate --kind 1f1b                 371 MB   578 B/cell
//	simulate --kind zb-v                 915 MB   476 B/cell
//	compare (every family, largest zb-v) 1467 MB  764 B/cell
//	delays, train --method pd            291 MB   455 B/cell
//
// They bound what a command holds at once, the table and what is derived
// from it (the lowered table, the timeline, the delays, the replay's
// events) and the garbage collector's headroom.
const (
	scheduleCellBytes = 200
	simulateCellBytes = 600
	compareCellBytes  = 800
	replayCellBytes   = 480
)

// guardShape refuses, before anything is allocated, a command on the table
// family would generate for sh when it would need more memory than the
// limit (budget.Check). A shape the family refuses is left to Generate to
// explain.
func guardShape(family string, sh pipeline.Shape, cellBytes float64) error {
	cells, err := pipeline.CellBound(family, sh)
	if err != nil {
		return nil
	}
	return budget.Check(fmt.Sprintf("a %d × %d %s table", sh.Ranks, sh.Microbatches, family), cells*cellBytes)
}

// guardTune refuses a search whose largest candidate would need more
// memory than the limit: tune simulates each schedule of --kind (every
// family without it) at each microbatch count (4P the largest without
// --microbatches).
func guardTune(p tune.Problem) error {
	counts := p.Microbatches
	if len(counts) == 0 {
		counts = []int{4 * p.Ranks}
	}
	schedules := p.Schedules
	if len(schedules) == 0 {
		for _, f := range pipeline.Families() {
			schedules = append(schedules, tune.Schedule{Family: f.Name})
		}
	}
	for _, sc := range schedules {
		for _, m := range counts {
			if err := guardShape(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: m, Chunks: sc.Chunks}, simulateCellBytes); err != nil {
				return err
			}
		}
	}
	return nil
}

// dataEntryBytes is the peak memory of train per entry of a generated n × d
// data set: 658 MB measured for train --objective quadratic --d 20000 (n =
// 2000, 4·10⁷ entries) on 2 stages, 16 B per entry (the float64 matrix
// and a matrix of the same size while it is made), rounded up.
const dataEntryBytes = 20

// guardData refuses a generated data set of n rows and d columns that
// would need more memory than the limit.
func guardData(n, d int) error {
	return budget.Check(fmt.Sprintf("a %d × %d data set", n, d), float64(n)*float64(d)*dataEntryBytes)
}

// registerMaxMemory adds --max-memory to a command's flags.
func registerMaxMemory(fs interface {
	Func(name, usage string, fn func(string) error)
}) {
	fs.Func("max-memory", "memory limit, e.g. 16G or 512MiB (default: "+budget.EnvVar+", else 3/4 of the memory available)", func(v string) error {
		b, err := budget.ParseBytes(v)
		if err != nil {
			return err
		}
		budget.SetLimit(b)
		return nil
	})
}
