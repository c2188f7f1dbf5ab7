package tune

import (
	"fmt"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
)

// ZBAutoCellBytes is what ZBAuto holds at its peak per cell of its table
// (ZBAutoCellBound): the best candidate so far, the candidate being built
// and its timeline, and the garbage collector's headroom. `pipelab
// schedule --kind zb-auto` peaked at 666 B a cell at 16 × 8000 and 628 at
// 64 × 2000 (its own printing included, /usr/bin/time -f %M less the 31 MB
// of a command that does nothing), rounded up; docs/robustness.md lists
// the measurements.
const ZBAutoCellBytes = 800

// ZBAutoCellBound bounds, without building it, the cells of the zb-auto
// table for ranks × microbatches: the bound of ZB-H1 (pipeline.CellBound),
// whose rows hold the same actions, one stage per rank and every backward
// split, laid out as the unit-time grid of their order
// (TestZBAutoCellBoundHolds checks it against the heuristic's tables).
func ZBAutoCellBound(ranks, microbatches int) (float64, error) {
	return pipeline.CellBound("zb-h1", pipeline.Shape{Ranks: ranks, Microbatches: microbatches})
}

// checkSize refuses a problem whose candidates would need more memory than
// the limit (budget.Check), before the first is built.
func (p ZBAutoProblem) checkSize() error {
	cells, err := ZBAutoCellBound(len(p.Stages), p.Microbatches)
	if err != nil {
		return fmt.Errorf("tune: zb-auto: %w", err)
	}
	return budget.Check(fmt.Sprintf("a %d × %d %s table", len(p.Stages), p.Microbatches, ZBAutoFamily), cells*ZBAutoCellBytes)
}
