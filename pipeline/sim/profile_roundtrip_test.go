package sim

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// The Chrome trace of a simulated iteration, read back as a profile
// (cost.ReadProfile), gives the costs it was simulated with: every stage's
// T_F, T_B and T_W and every boundary's transfer time of the GPU model, to
// float64 rounding of the trace's microseconds; priced with those, the
// table times as it did.
func TestProfileRoundTrip(t *testing.T) {
	cfg := presetConfig(t, "llama-7b", "a100", "ib-ndr")
	for _, tc := range []struct {
		family string
		shape  pipeline.Shape
	}{
		{"zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8}},
		{"interleaved-zb", pipeline.Shape{Ranks: 2, Microbatches: 4, Chunks: 2}},
		{"1f1b", pipeline.Shape{Ranks: 4, Microbatches: 4}},
	} {
		tb := generate(t, tc.family, tc.shape)
		model, err := cost.GPUForTable(cfg, tb)
		if err != nil {
			t.Fatal(err)
		}
		g := model.(*cost.GPUModel)
		tl := simulateOK(t, tb, g, Options{})
		path := filepath.Join(t.TempDir(), "trace.json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteChromeTrace(f, tl); err != nil {
			t.Fatal(err)
		}
		f.Close()
		m, err := cost.ReadProfile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Stages) != tb.Stages() {
			t.Fatalf("%s: %d stages read, the table has %d", tc.family, len(m.Stages), tb.Stages())
		}
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
		for s, got := range m.Stages {
			want := g.Stage(s)
			if tc.family == "1f1b" { // full backwards only: T_B holds B's whole time
				want.TB, want.TW = want.TB+want.TW, 0
			}
			if !close(got.TF, want.TF) || !close(got.TB, want.TB) || !close(got.TW, want.TW) {
				t.Errorf("%s stage %d: read %+v, simulated with %+v", tc.family, s, got, want)
			}
		}
		for s, got := range m.Comm {
			from, to := tb.Placement[s], tb.Placement[s+1]
			if want := g.Transfer(pipeline.Act(pipeline.SendF, s, 0), from, to); !close(got, want) {
				t.Errorf("%s boundary %d: read %g s, simulated with %g", tc.family, s, got, want)
			}
		}
		priced, err := m.ForTable(tb)
		if err != nil {
			t.Fatal(err)
		}
		again := simulateOK(t, tb, priced, Options{})
		if !close(Makespan(again), Makespan(tl)) {
			t.Errorf("%s: %g s with the profile's costs, %g with the GPU model's", tc.family, Makespan(again), Makespan(tl))
		}
	}
}
