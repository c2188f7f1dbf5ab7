package request

import (
	"github.com/pipelab/pipelab/internal/budget"

	"github.com/pipelab/pipelab/experiments/costspec"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// The memory per table cell of each command and the guards live beside
// the sweep's (experiments/validate_size.go), so that a command and a
// sweep refuse the same work.
const (
	ScheduleCellBytes = costspec.ScheduleCellBytes
	SimulateCellBytes = costspec.SimulateCellBytes
	CompareCellBytes  = costspec.CompareCellBytes
	ReplayCellBytes   = costspec.ReplayCellBytes
)

var GuardShape = costspec.GuardShape

// GuardTune refuses a search whose largest candidate would need more
// memory than the limit: tune simulates each schedule of --kind
// (tune.DefaultSchedules without it) at each microbatch count (4P the largest without
// --microbatches).
func GuardTune(p tune.Problem) error {
	counts := p.Microbatches
	if len(counts) == 0 {
		counts = []int{4 * p.Ranks}
	}
	schedules := p.Schedules
	if len(schedules) == 0 {
		schedules = tune.DefaultSchedules
	}
	for _, sc := range schedules {
		for _, m := range counts {
			if err := GuardShape(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: m, Chunks: sc.Chunks}, SimulateCellBytes); err != nil {
				return err
			}
		}
	}
	return nil
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
