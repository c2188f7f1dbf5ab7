package tune

import (
	"errors"
	"testing"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
)

// TestZBAutoRefusesBeyondTheLimit: ZBAuto refuses, before it builds a
// candidate, a problem whose tables would need more memory than the limit.
// Issue 39 ran --ranks 100 --microbatches 100000 under a 1 MB limit past
// 3 GB; 16 × 2000 is already some 400 thousand cells, tens of megabytes.
func TestZBAutoRefusesBeyondTheLimit(t *testing.T) {
	budget.SetLimit(1 << 20)
	defer budget.SetLimit(0)
	for _, sh := range [][2]int{{16, 2000}, {100, 100000}} {
		_, err := ZBAuto(ZBAutoProblem{Stages: make([]StageTimes, sh[0]), Microbatches: sh[1]})
		if !errors.Is(err, budget.ErrTooLarge) {
			t.Errorf("P=%d M=%d under 1 MB: %v, want a refusal matching budget.ErrTooLarge", sh[0], sh[1], err)
		}
	}
}

// TestZBAutoCellBoundHolds checks ZBAutoCellBound against the cells of the
// tables ZBAuto builds, under unit times and under times whose ratios the
// heuristic fills differently (T_W large, transfers as long as a forward),
// with the limits P and 2P: never below the real count.
func TestZBAutoCellBoundHolds(t *testing.T) {
	costs := []StageTimes{{TF: 1, TB: 1, TW: 1}, {TF: 1, TB: 2, TW: 5, Comm: 1}, {TF: 3, TB: 1, TW: 0.5, Comm: 0.2}}
	for _, p := range []int{2, 4, 8} {
		for _, m := range []int{1, 3, 8, 32} {
			for _, c := range costs {
				for _, limit := range []int{p, 2 * p} {
					stages := make([]StageTimes, p)
					for i := range stages {
						stages[i] = c
					}
					s, err := ZBAuto(ZBAutoProblem{Stages: stages, Microbatches: m, MaxActivations: limit})
					if err != nil {
						t.Fatalf("P=%d M=%d %+v: %v", p, m, c, err)
					}
					bound, err := ZBAutoCellBound(p, m)
					if err != nil {
						t.Fatal(err)
					}
					if got := float64(cellCount(s.Table)); bound < got {
						t.Errorf("P=%d M=%d %+v limit %d: bound %g below the table's %g cells", p, m, c, limit, bound, got)
					}
				}
			}
		}
	}
}

// cellCount counts a table's cells, bubbles included.
func cellCount(t *pipeline.Table) int {
	n := 0
	for _, row := range t.Rows {
		n += len(row)
	}
	return n
}
