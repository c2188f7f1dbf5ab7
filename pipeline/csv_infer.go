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
	inferRoutes(t)
	return nil
}

// inferRoutes fills in t's Routes and MicrobatchRoute when the cells show
// that the microbatches run in separate pipelines, as in Chimera's two: the
// range of stages a microbatch's actions name (lowest to highest) is its
// route, and when the distinct ranges are disjoint and together cover every
// stage, each becomes a Route, in stage order. Otherwise, and in particular
// when every microbatch names every stage, the table keeps nil Routes as
// PyTorch's schedules have, and every microbatch must run on every stage:
// ValidateCSV then reports what a microbatch is missing.
func inferRoutes(t *Table) {
	n := t.Microbatches
	routeOf := make([]Route, n)
	for m := range routeOf {
		routeOf[m] = Route{First: -1}
	}
	forEachStep(t, func(_ cellPos, sub Action) {
		rt := &routeOf[sub.Microbatch]
		if rt.First < 0 {
			*rt = Route{sub.Stage, sub.Stage}
			return
		}
		rt.First, rt.Last = min(rt.First, sub.Stage), max(rt.Last, sub.Stage)
	})
	routes := slices.Clone(routeOf)
	slices.SortFunc(routes, compareRoutes)
	routes = slices.Compact(routes)
	if len(routes) < 2 || routes[0].First != 0 || routes[len(routes)-1].Last != t.Stages()-1 {
		return
	}
	for i := 1; i < len(routes); i++ {
		if routes[i].First != routes[i-1].Last+1 {
			return
		}
	}
	t.Routes = slices.Clip(routes)
	t.MicrobatchRoute = make([]int, n)
	for m, rt := range routeOf {
		t.MicrobatchRoute[m], _ = slices.BinarySearchFunc(t.Routes, rt, compareRoutes)
	}
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
