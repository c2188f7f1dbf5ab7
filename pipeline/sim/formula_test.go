package sim

import (
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// The closed forms against simulation, free communication, uniform stages:
// where a family's formula is exact, the simulated makespan (or, for the
// zero-bubble schedules, whose paper measures the longest rank span) and
// peak equal it. The per-action costs are the rank share split over V
// chunks.
func TestFormulaMatchesSimulation(t *testing.T) {
	cases := []struct {
		family string
		sh     pipeline.Shape
		cost   cost.Stage
		span   bool // compare the longest rank span, not the makespan
	}{
		{"gpipe", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 1, TB: 2, TW: 1}, false},
		{"1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 1, TB: 2, TW: 1}, false},
		{"1f1b", pipeline.Shape{Ranks: 8, Microbatches: 4}, cost.Stage{TF: 2, TB: 3}, false},
		{"pipedream", pipeline.Shape{Ranks: 4, Microbatches: 12}, cost.Stage{TF: 1, TB: 1}, false},
		{"interleaved-1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 2}, cost.Stage{TF: 2, TB: 4}, false},
		{"looped-bfs", pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 2}, cost.Stage{TF: 2, TB: 2}, false},
		{"zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 1, TB: 2, TW: 1}, true},
		{"zb-h2", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 1, TB: 2, TW: 1}, true},
		{"zb-v", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 2, TB: 2, TW: 2}, true},
		{"chimera", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 1, TB: 1}, false},
		{"dualpipev", pipeline.Shape{Ranks: 4, Microbatches: 8}, cost.Stage{TF: 2, TB: 2, TW: 2}, false},
	}
	for _, tc := range cases {
		est, ok := ClosedForm(tc.family, tc.sh, tc.cost)
		if !ok {
			t.Fatalf("%s: no closed form", tc.family)
		}
		tb := generate(t, tc.family, tc.sh)
		v := float64(tb.Stages()) / float64(tb.Ranks())
		if tb.Routes != nil {
			v = 1 // Chimera's replicas: every stage is a whole rank share
		}
		cost := cost.Explicit{TF: tc.cost.TF / v, TB: tc.cost.TB / v, TW: tc.cost.TW / v}
		tl := simulateOK(t, tb, cost, Options{})
		got := Makespan(tl)
		want := est.Makespan
		if tc.span {
			got = longestSpan(tl) - float64(tc.sh.Microbatches)*(tc.cost.TF+tc.cost.TB+tc.cost.TW)
			want = est.Bubble
		}
		if got != want {
			t.Errorf("%s %+v %+v: simulated %v, formula %v (%s)", tc.family, tc.sh, tc.cost, got, want, est.Source)
		}
		if peak := float64(slices.Max(PeakActivations(tl))); peak != est.PeakActivations {
			t.Errorf("%s %+v: peak activations %v, formula %v", tc.family, tc.sh, peak, est.PeakActivations)
		}
	}
}

func TestFormulaNotAvailable(t *testing.T) {
	sh := pipeline.Shape{Ranks: 4, Microbatches: 8}
	for _, tc := range []struct {
		family string
		cost   cost.Stage
	}{{"hanayo", cost.Stage{TF: 1, TB: 1}}, {"zb-v", cost.Stage{TF: 1, TB: 2, TW: 1}}, {"no-such", cost.Stage{TF: 1}}} {
		if est, ok := ClosedForm(tc.family, sh, tc.cost); ok {
			t.Errorf("%s %+v: closed form %+v, want none", tc.family, tc.cost, est)
		}
	}
}

// Chimera's up pipeline runs model part i on table stage P + i, so its
// stages price as the parts they replicate; other tables cut the model into
// one part per stage.
func TestFormulaModelParts(t *testing.T) {
	chimera := generate(t, "chimera", pipeline.Shape{Ranks: 4, Microbatches: 4})
	part, parts := cost.ModelParts(chimera)
	if parts != 4 || !slices.Equal(part, []int{0, 1, 2, 3, 0, 1, 2, 3}) {
		t.Errorf("chimera parts %v of %d, want 0..3 twice of 4", part, parts)
	}
	il := generate(t, "interleaved-1f1b", pipeline.Shape{Ranks: 2, Microbatches: 4, Chunks: 2})
	if got := cost.ForRankShare(il, cost.Stage{TF: 2, TB: 4, TW: 1}, 0.5); got.TF != 1 || got.TB != 2 || got.TW != 0.5 || got.Comm != 0.5 {
		t.Errorf("interleaved V=2 rank share: %+v, want half per chunk", got)
	}
	cfg := presetConfig(t, "llama-7b", "h100", "ib-ndr")
	priced, err := cost.GPUForTable(cfg, chimera)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := cost.NewGPUModel(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 8 {
		i := s % 4
		if priced.Compute(pipeline.F(s, 0)) != whole.Compute(pipeline.F(i, 0)) || priced.StaticBytes(s) != whole.StaticBytes(i) ||
			priced.ActivationBytes(s) != whole.ActivationBytes(i) {
			t.Errorf("chimera stage %d is not priced as part %d", s, i)
		}
	}
	if got, want := priced.MessageBytes(pipeline.Act(pipeline.SendF, 5, 0)), whole.MessageBytes(pipeline.Act(pipeline.SendF, 1, 0)); got != want {
		t.Errorf("message after stage 5: %v bytes, want part 1's %v", got, want)
	}
}
