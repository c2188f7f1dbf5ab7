package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// TestDualPipeBubbleFormula checks the full DualPipe against the bubble of
// DualPipe's README (arXiv 2412.19437 §3.2), (PP/2 - 1)(F&B + B - 3W), PP
// = P ranks of one stage per pipeline, F, B (full backward), W and F&B = F
// + B times of one rank's share, under the conditions DualPipeV meets it
// in (TestDualPipeVBubbleFormula): uniform stages, free communication,
// T_F = T_B >= T_W. Then the makespan is M(T_F + T_B + T_W) plus the
// bubble, every rank idles exactly the bubble, and ClosedForm agrees.
func TestDualPipeBubbleFormula(t *testing.T) {
	costs := []cost.Stage{{TF: 1, TB: 1, TW: 1}, {TF: 2, TB: 2, TW: 1}, {TF: 1, TB: 1, TW: 0}, {TF: 3, TB: 3, TW: 2}}
	for p := 2; p <= 10; p += 2 {
		for _, m := range []int{2 * p, 2*p + 2, 3*p + 2, 40} {
			sh := pipeline.Shape{Ranks: p, Microbatches: m}
			tb := generate(t, "dualpipe", sh)
			for _, c := range costs {
				name := fmt.Sprintf("P%d M%d %+v", p, m, c)
				f, b, w := c.TF, c.TB+c.TW, c.TW
				bubble := float64(p/2-1) * ((f + b) + b - 3*w)
				work := float64(m) * (c.TF + c.TB + c.TW)
				tl := simulateOK(t, tb, cost.Explicit{TF: c.TF, TB: c.TB, TW: c.TW}, Options{})
				if got := Makespan(tl); got != work+bubble {
					t.Errorf("%s: makespan %v, want M(T_F+T_B+T_W) + (PP/2-1)(F&B+B-3W) = %v + %v", name, got, work, bubble)
				}
				for _, st := range RankStats(tl, nil) {
					if st.Idle != bubble {
						t.Errorf("%s rank %d: idle %v, want the bubble %v", name, st.Rank, st.Idle, bubble)
					}
				}
				est, ok := ClosedForm("dualpipe", sh, c)
				if !ok || est.Bubble != bubble || est.Makespan != work+bubble || est.PeakActivations != float64(p+1) {
					t.Errorf("%s: closed form %+v (ok %v), want bubble %v, makespan %v, peak %d", name, est, ok, bubble, work+bubble, p+1)
				}
			}
			if got := slices.Max(PeakActivations(simulateOK(t, tb, cost.Explicit{TF: 1, TB: 1, TW: 1}, Options{}))); got != p+1 {
				t.Errorf("P%d M%d: simulated peak %d activations, want PP + 1 = %d", p, m, got, p+1)
			}
		}
	}
}
