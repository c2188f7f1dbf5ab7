package pipeline

// computeGrid holds one number per compute kind (F, B, I, W), stage and
// microbatch, -1 until set: the cell in which Validate met the action, or
// the step in which a generator's unit-time placement ran it. Only the
// compute kinds may index it.
type computeGrid struct {
	microbatches int
	at           [computeKinds][]int // by Kind.slot, then stage*microbatches + microbatch
}

func newComputeGrid(stages, microbatches int) computeGrid {
	g := computeGrid{microbatches: microbatches}
	for k := range g.at {
		g.at[k] = make([]int, stages*microbatches)
		for i := range g.at[k] {
			g.at[k][i] = -1
		}
	}
	return g
}

// get returns the number set for the action of kind k on stage s and
// microbatch m, or -1.
func (g *computeGrid) get(k Kind, s, m int) int { return g.at[k.slot()][s*g.microbatches+m] }

// set records v for the action of kind k on stage s and microbatch m.
func (g *computeGrid) set(k Kind, s, m, v int) { g.at[k.slot()][s*g.microbatches+m] = v }
