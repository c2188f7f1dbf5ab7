package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// TestVShapeSimulated simulates V-Half and V-Min with T_F = T_B = T_W = 1
// per chunk and free communication: the simulation is the unit-time grid
// (its makespan is the grid's length), the simulated peak is the paper's
// (P + 4) // 3 (V-Min) and (P + 2) // 2 (V-Half) rank shares, twice that
// in chunk activations (arXiv 2405.15362), and ClosedForm returns that
// peak. The bubble is compared with the paper's ~2P/3 and ~P/2
// microbatches' work in docs/vshape.md.
func TestVShapeSimulated(t *testing.T) {
	for _, fam := range []string{"v-min", "v-half"} {
		for p := 2; p <= 12; p++ {
			sh := pipeline.Shape{Ranks: p, Microbatches: 3 * p}
			name := fmt.Sprintf("%s P%d", fam, p)
			tb := generate(t, fam, sh)
			tl := simulateOK(t, tb, cost.Explicit{TF: 1, TB: 1, TW: 1}, Options{})
			grid := 0
			for _, row := range tb.Rows {
				grid = max(grid, len(row))
			}
			if got := Makespan(tl); got != float64(grid) {
				t.Errorf("%s: makespan %v, want the unit grid's %d", name, got, grid)
			}
			want := map[string]int{"v-min": 2 * ((p + 4) / 3), "v-half": 2 * ((p + 2) / 2)}[fam]
			if got := slices.Max(PeakActivations(tl)); got != want {
				t.Errorf("%s: simulated peak %d chunk activations, want %d", name, got, want)
			}
			est, ok := ClosedForm(fam, sh, cost.Stage{TF: 2, TB: 2, TW: 2})
			if !ok || est.PeakActivations != float64(want) {
				t.Errorf("%s: closed form %+v (ok %v), want peak %d", name, est, ok, want)
			}
			if _, ok := ClosedForm(fam, sh, cost.Stage{TF: 1, TB: 2, TW: 1}); ok {
				t.Errorf("%s: closed form given for unequal times, which the paper does not state", name)
			}
		}
	}
}
