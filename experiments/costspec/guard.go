package costspec

import (
	"fmt"

	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// Peak memory per cell of a command's generated table (pipeline.CellBound):
// the peak resident set above that of the same command on a 2 × 2 table,
// measured by TestSizeEstimatesCoverThePeak (cmd/pipelab) for every family
// at two shapes, divided by the bound, at its largest over two runs (at
// 8 × 2000 and 16 × 6000, then at 8 × 4000 and 16 × 8000):
//
//	schedule (text or csv)  382 B/cell  chimera --format csv at 16 × 8000; zb-v, interleaved-zb and hanayo above 300
//	simulate                588 B/cell  hanayo at 8 × 2000
//	compare                 830 B/cell  16 × 6000, of its largest family's bound
//	delays (a replay)       120 B/cell  pipedream
//
// rounded up with room for the garbage collector's timing, which moves a
// peak by a tenth from run to run. They bound what a command holds at
// once: the table and what is derived from it (the lowered table, the
// timeline, the delays, the replay's events). The test checks every
// family against them; docs/robustness.md lists each estimate beside its
// peak.
const (
	ScheduleCellBytes = 500
	SimulateCellBytes = 800
	CompareCellBytes  = 1100
	ReplayCellBytes   = 480
)

// GuardShape refuses, before anything is allocated, work on the table
// family would generate for sh when it would need more memory than the
// limit (budget.Check), cellBytes a cell (ShapeBytes): the one guard of a
// sweep's runs and the command line's tables. It fails closed: a table it
// cannot bound (an unknown family, options the family refuses) is refused
// with the reason, as bad input.
func GuardShape(family string, sh pipeline.Shape, cellBytes float64) error {
	bytes, err := ShapeBytes(family, sh, cellBytes)
	if err != nil {
		return err
	}
	return budget.Check(fmt.Sprintf("a %d × %d %s table", sh.Ranks, sh.Microbatches, family), bytes)
}

// ShapeBytes is what GuardShape holds work on family's table for sh to:
// its cells (pipeline.CellBound) times cellBytes, what the work holds a
// cell. zb-auto, which pipeline/tune builds from costs, is bounded by
// tune.ZBAutoCellBound, and its building (tune.ZBAutoCellBytes a cell)
// comes on top of the work. An error, which matches fault.BadInput, says
// why the table cannot be bounded.
func ShapeBytes(family string, sh pipeline.Shape, cellBytes float64) (float64, error) {
	var cells float64
	var err error
	if family == tune.ZBAutoFamily {
		cells, err = tune.ZBAutoCellBound(sh.Ranks, sh.Microbatches)
		cellBytes += tune.ZBAutoCellBytes
	} else {
		cells, err = pipeline.CellBound(family, sh)
	}
	if err != nil {
		return 0, fault.Badf("a %d × %d %s table: %v", sh.Ranks, sh.Microbatches, family, err)
	}
	return cells * cellBytes, nil
}

// ComparisonShape is the shape at which the tabular-schedule comparison
// ("pipelab compare" and the schedules measure alike) generates and prices
// a family: P ranks, M microbatches, V chunks (0: the family's own), and
// LocalSGD averaging after every local step (H = 1).
func ComparisonShape(ranks, microbatches, chunks int) pipeline.Shape {
	return pipeline.Shape{Ranks: ranks, Microbatches: microbatches, Chunks: chunks, LocalSteps: 1}
}

// OverMemory finds the first stage of m (a model cut into stages stages)
// whose one microbatch's activations take more than the GPU's memory: no
// schedule can run such a workload, and a memory column would report
// figures like a million GiB per rank. The GPU is cfg's, the hardware
// file's when there is one. A spec and the command line refuse the same
// workloads by it.
func OverMemory(cfg cost.GPUConfig, m cost.Memory, stages int) (stage int, need float64, over bool) {
	for s := range stages {
		if need := m.ActivationBytes(s); need > cfg.GPU.MemoryBytes {
			return s, need, true
		}
	}
	return 0, 0, false
}

// OverMemoryText says, in the words a spec, the command line and pipelab
// compare share, that stage cannot hold one microbatch of need bytes on
// cfg's GPU; each caller adds the settings to lower.
func OverMemoryText(cfg cost.GPUConfig, stage int, need float64) string {
	return fmt.Sprintf("one microbatch's activations on stage %d take %s, more than the %s's %s",
		stage, budget.Format(need), cfg.GPU.Name, budget.Format(cfg.GPU.MemoryBytes))
}
