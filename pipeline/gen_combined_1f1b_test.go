package pipeline

import (
	"fmt"
	"testing"
)

// TestCombined1F1BInvariants checks, for P = 1 to 6, V = 2 to 4 and
// several M, what Megatron-LM's combined 1F1B promises: rank r runs
// w = min(2(P-r-1) + (V-1)G + 1, MV) warm-up forwards (get_pp_rank_microbatches
// with --overlap-moe-expert-parallel-comm), then MV - w combined steps, each
// an OVERLAP_F_B whose backward's forward ran in an earlier column (the
// two halves are independent, the reason for the extra warm-up forward),
// then w backwards; the busiest rank peaks at w + 1 chunk activations
// counting a combined step's forward before its backward frees, one more
// than interleaved 1F1B's 2(P-1) + (V-1)G + 1 on rank 0.
func TestCombined1F1BInvariants(t *testing.T) {
	for p := 1; p <= 6; p++ {
		for v := 2; v <= 4; v++ {
			for _, m := range []int{p, 2 * p, 3 * p, 5 * p} {
				name := fmt.Sprintf("P%d V%d M%d", p, v, m)
				tb, err := Generate("combined-1f1b", Shape{Ranks: p, Microbatches: m, Chunks: v})
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				g, _ := interleavedGroup(p, m)
				column := map[Action]int{}
				for _, row := range tb.Rows {
					for c, a := range row {
						for _, sub := range subActions(a) {
							column[sub] = c
						}
					}
				}
				for r, row := range tb.Rows {
					w := min(2*(p-r-1)+(v-1)*g+1, m*v)
					var fwd, pairs, bwd, held, peak int
					for c, a := range row {
						switch a.Kind {
						case Forward:
							fwd++
							held++
							if pairs > 0 || bwd > 0 {
								t.Errorf("%s rank %d: forward %s after the warm-up", name, r, a)
							}
						case OverlapFB:
							pairs++
							peak = max(peak, held+1)
							if column[F(a.BackStage, a.BackMicrobatch)] >= c {
								t.Errorf("%s rank %d: %s pairs a backward with its own forward's column", name, r, a)
							}
						case Backward:
							bwd++
							held--
						}
						peak = max(peak, held)
					}
					if fwd != w || pairs != m*v-w || bwd != w {
						t.Errorf("%s rank %d: %d F, %d combined, %d B; want %d, %d, %d", name, r, fwd, pairs, bwd, w, m*v-w, w)
					}
					if want := min(w+1, m*v); peak != want {
						t.Errorf("%s rank %d: peak %d chunk activations, want %d", name, r, peak, want)
					}
				}
			}
		}
	}
}
