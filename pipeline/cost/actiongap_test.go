package cost

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// GPUConfig.ActionGap adds the same gap to every compute action, an
// OVERLAP_F_B pair's included, and leaves the stages' kernel times (Stage)
// and the transfers as they were: compared action by action against the
// same model without it, on 1F1B (F, B), ZB-H1 (F, I, W) and DualPipeV
// (OVERLAP_F_B).
func TestGPUModelActionGap(t *testing.T) {
	gpu, _ := LookupGPU("h100")
	link, _ := LookupLink("nvlink")
	const gap = 1e-3
	cfg := GPUConfig{Network: decoderOnly(8, 2048, 16), GPU: gpu, Link: link, Microbatch: 2, Sequence: 1024}
	for _, tc := range []struct {
		family string
		shape  pipeline.Shape
		parts  int
	}{
		{"1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8}, 4},
		{"zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8}, 4},
		{"dualpipev", pipeline.Shape{Ranks: 4, Microbatches: 16}, 8},
	} {
		without, err := NewGPUModel(cfg, tc.parts)
		if err != nil {
			t.Fatal(err)
		}
		gapped := cfg
		gapped.ActionGap = gap
		with, err := NewGPUModel(gapped, tc.parts)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := pipeline.Generate(tc.family, tc.shape)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[pipeline.Kind]bool{}
		for _, row := range tab.Rows {
			for _, a := range row {
				if !a.Kind.IsCompute() {
					continue
				}
				seen[a.Kind] = true
				if got, want := with.Compute(a), without.Compute(a)+gap; math.Abs(got-want) > 1e-15 {
					t.Errorf("%s %v: %g s with the gap, want %g", tc.family, a, got, want)
				}
			}
		}
		if tc.family == "dualpipev" && !seen[pipeline.OverlapFB] {
			t.Errorf("dualpipev has no OVERLAP_F_B action to check")
		}
		for s := range tc.parts {
			if with.Stage(s) != without.Stage(s) {
				t.Errorf("%s stage %d: %+v with the gap, %+v without", tc.family, s, with.Stage(s), without.Stage(s))
			}
		}
		send := pipeline.Act(pipeline.SendF, 0, 0)
		if with.Transfer(send, 0, 1) != without.Transfer(send, 0, 1) {
			t.Errorf("%s: the gap changed a transfer", tc.family)
		}
	}
	for _, bad := range []float64{-1e-3, 1, math.NaN()} {
		c := cfg
		c.ActionGap = bad
		if _, err := NewGPUModel(c, 4); err == nil {
			t.Errorf("action gap %g s: no error", bad)
		}
	}
}
