package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// TestDualPipeREADMETable reproduces the comparison table of DualPipe's
// README (deepseek-ai/DualPipe, "Pipeline Bubbles and Memory Usage
// Comparison (based on the same number of PP stages)") from unit costs:
// PP model stages, each with F = 1 (forward), W = 1 (weight gradient) and
// a full backward B = 2 (input gradient 1 plus W), F&B = F + B = 3, and free
// communication. For PP = 4, 8 and 16 and M = 4PP microbatches, each
// family's simulated bubble (the idle time of the busiest rank), parameters per device (model stages a rank holds,
// in units of one stage, 1/PP of the model) and activations per device
// (the simulator's peak count, in one stage's microbatch activations) must
// equal the README's row exactly:
//
//	1F1B       (PP-1)(F+B)          1×  PP      on PP devices
//	ZB1P       (PP-1)(F+B-2W)       1×  PP      on PP devices (zb-h1)
//	DualPipe   (PP/2-1)(F&B+B-3W)   2×  PP + 1  on PP devices
//	DualPipeV  (PP/2-1)(F&B+B-3W)   2×  PP + 1  on PP/2 devices
//
// docs/validation.md lists the rows at PP = 8.
func TestDualPipeREADMETable(t *testing.T) {
	const f, b, w = 1.0, 2.0, 1.0
	for _, pp := range []int{4, 8, 16} {
		m := 4 * pp
		for _, row := range dualPipeREADMERows(pp) {
			name := fmt.Sprintf("PP %d %s", pp, row.family)
			tb := generate(t, row.family, pipeline.Shape{Ranks: row.devices, Microbatches: m})
			// A stage's unit costs, whatever the stage count (cost.Explicit
			// prices every action of a stage alike).
			tl := simulateOK(t, tb, cost.Explicit{TF: f, TB: b - w, TW: w}, Options{})
			bubble := Makespan(tl)
			for _, st := range RankStats(tl, nil) {
				bubble = min(bubble, st.Idle)
			}
			if got := bubble; got != row.bubble(f, b, w) {
				t.Errorf("%s: bubble %v, want the README's %v", name, got, row.bubble(f, b, w))
			}
			held := map[int]int{}
			for s := range tb.Stages() {
				held[tb.Rank(s)]++
			}
			for r, n := range held {
				if n != row.params {
					t.Errorf("%s rank %d: %d stages held, want the README's %d×", name, r, n, row.params)
				}
			}
			if got := slices.Max(PeakActivations(tl)); got != row.activations {
				t.Errorf("%s: peak %d stage activations, want the README's %d", name, got, row.activations)
			}
		}
	}
}

// dualPipeREADMERow is one row of DualPipe's README table at PP stages.
type dualPipeREADMERow struct {
	family              string
	devices             int
	bubble              func(f, b, w float64) float64
	params, activations int
}

func dualPipeREADMERows(pp int) []dualPipeREADMERow {
	n := float64(pp)
	dual := func(f, b, w float64) float64 { return (n/2 - 1) * ((f + b) + b - 3*w) }
	return []dualPipeREADMERow{
		{"1f1b", pp, func(f, b, w float64) float64 { return (n - 1) * (f + b) }, 1, pp},
		{"zb-h1", pp, func(f, b, w float64) float64 { return (n - 1) * (f + b - 2*w) }, 1, pp},
		{"dualpipe", pp, dual, 2, pp + 1},
		{"dualpipev", pp / 2, dual, 2, pp + 1},
	}
}
