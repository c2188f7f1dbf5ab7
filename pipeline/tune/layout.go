package tune

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// layout is what the tuner cuts the layers into for a table, and where the
// pieces run: the table's model parts (cost.ModelParts), one per stage in
// a table without Routes, and P for Chimera's 2P stages, whose stages p
// and P+p replicate part p on two ranks. A partition has one entry per
// part.
type layout struct {
	parts     int
	stagePart []int // the part each stage runs
	placement []int // the rank of each stage
	ranks     int
}

func newLayout(t *pipeline.Table) layout {
	part, parts := cost.ModelParts(t)
	return layout{parts: parts, stagePart: part, placement: t.Placement, ranks: t.Ranks()}
}

// holds reports whether rank r runs a stage of part p.
func (l layout) holds(r, p int) bool {
	for s, q := range l.stagePart {
		if q == p && l.placement[s] == r {
			return true
		}
	}
	return false
}
