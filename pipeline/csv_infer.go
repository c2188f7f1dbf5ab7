package pipeline

import (
	"cmp"
	"slices"
)

// inferShape fills in t's Placement, Microbatches and routes from its
// cells.
func inferShape(t *Table, name string) error {
	stageAt := map[int]cellPos{} // first cell naming each stage
	stageRank := map[int]int{}   // rank of each stage
	mbAt := map[int]cellPos{}    // first cell naming each microbatch
	var maxStage, maxMB = -1, -1
	var maxStageAt, maxMBAt cellPos
	for r, row := range t.Rows {
		for i, a := range row {
			p := cellPos{r + 1, i + 1}
			for _, sub := range subActions(a) {
				if prev, seen := stageAt[sub.Stage]; seen && stageRank[sub.Stage] != r {
					return malformedAt(name, p,
						"stage %d is on rank %d here and on rank %d at line %d, cell %d: a stage lives on one rank",
						sub.Stage, r, stageRank[sub.Stage], prev.line, prev.cell)
				} else if !seen {
					stageAt[sub.Stage], stageRank[sub.Stage] = p, r
				}
				if sub.Stage > maxStage {
					maxStage, maxStageAt = sub.Stage, p
				}
				if !sub.Kind.HasMicrobatch() {
					continue
				}
				if _, seen := mbAt[sub.Microbatch]; !seen {
					mbAt[sub.Microbatch] = p
				}
				if sub.Microbatch > maxMB {
					maxMB, maxMBAt = sub.Microbatch, p
				}
			}
		}
	}
	if maxStage < 0 {
		return malformedAt(name, cellPos{1, 1}, "no actions in the file")
	}
	for s := 0; s < maxStage; s++ {
		if _, ok := stageAt[s]; !ok {
			return malformedAt(name, maxStageAt,
				"stage %d appears but stage %d appears in no cell: stages are numbered 0..S-1", maxStage, s)
		}
	}
	for m := 0; m < maxMB; m++ {
		if _, ok := mbAt[m]; !ok {
			return malformedAt(name, maxMBAt,
				"microbatch %d appears but microbatch %d appears in no cell: microbatches are numbered 0..M-1", maxMB, m)
		}
	}
	t.Placement = make([]int, maxStage+1)
	for s := range t.Placement {
		t.Placement[s] = stageRank[s]
	}
	t.Microbatches = maxMB + 1
	return inferRoutes(t, name)
}

// inferRoutes fills in t's Routes and MicrobatchRoute when the cells show
// that microbatches do not all traverse every stage, as in Chimera's two
// pipelines: the stages a microbatch's actions name must be one contiguous
// range, and each distinct range becomes a Route, in order of first and
// last stage. When every microbatch names every stage, the table keeps nil
// Routes, as PyTorch's schedules have. A microbatch that skips a stage
// inside its range is malformed.
func inferRoutes(t *Table, name string) error {
	n := t.Microbatches
	// Group, by microbatch, the stages its actions name (a counting sort;
	// inferShape made sure no group is empty).
	start := make([]int, n+1)
	forEachStep(t, func(_ cellPos, sub Action) { start[sub.Microbatch+1]++ })
	for m := range n {
		start[m+1] += start[m]
	}
	stages, fill := make([]int, start[n]), slices.Clone(start[:n])
	forEachStep(t, func(_ cellPos, sub Action) {
		stages[fill[sub.Microbatch]] = sub.Stage
		fill[sub.Microbatch]++
	})
	routeOf := make([]Route, n)
	everyStage := true
	for m := range n {
		group := stages[start[m]:start[m+1]]
		slices.Sort(group)
		for i := 1; i < len(group); i++ {
			if group[i] > group[i-1]+1 {
				return skippedStage(t, name, m, group[i-1], group[i])
			}
		}
		routeOf[m] = Route{group[0], group[len(group)-1]}
		everyStage = everyStage && routeOf[m] == Route{0, t.Stages() - 1}
	}
	if everyStage {
		return nil
	}
	t.Routes = slices.Clone(routeOf)
	slices.SortFunc(t.Routes, compareRoutes)
	t.Routes = slices.Clip(slices.Compact(t.Routes))
	t.MicrobatchRoute = make([]int, n)
	for m, rt := range routeOf {
		t.MicrobatchRoute[m], _ = slices.BinarySearchFunc(t.Routes, rt, compareRoutes)
	}
	return nil
}

// compareRoutes orders routes by first stage, then last.
func compareRoutes(a, b Route) int {
	return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Last, b.Last))
}

// forEachStep calls visit with the cell and each single action of t that
// names a microbatch: a step of that microbatch along its stages.
func forEachStep(t *Table, visit func(cellPos, Action)) {
	for r, row := range t.Rows {
		for i, a := range row {
			for _, sub := range subActions(a) {
				if sub.Kind.HasMicrobatch() {
					visit(cellPos{r + 1, i + 1}, sub)
				}
			}
		}
	}
}

// skippedStage reports microbatch m, whose actions name stages below and
// above but none between, at the first cell naming m on stage above.
func skippedStage(t *Table, name string, m, below, above int) error {
	var at cellPos
	forEachStep(t, func(p cellPos, sub Action) {
		if at.line == 0 && sub.Microbatch == m && sub.Stage == above {
			at = p
		}
	})
	return malformedAt(name, at,
		"microbatch %d runs on stages %d and %d but on none between (no action of it names stage %d): "+
			"a microbatch flows through one contiguous range of stages", m, below, above, below+1)
}
