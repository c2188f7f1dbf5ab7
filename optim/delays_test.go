package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

func pipeDreamTimeline(t testing.TB, stages, microbatches int) *sim.Timeline {
	t.Helper()
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	if err != nil {
		t.Fatal(err)
	}
	return sim.FromGrid(tab)
}

// PipeDream's delays k - j_k^(s) over the second half of the rows with
// N = 10S (docs/reference.md §1.3, measured with the reference code): the
// maximum is ⌊S² - S/2⌋ (the paper's closed form), the means 7.55 and
// 31.65; the timeline takes 2N + 2S - 2 steps (§1.2); over all rows the
// S = 8 maximum is 72.
func TestDelaysSteadyState(t *testing.T) {
	cases := []struct {
		stages   int
		mean     float64
		maxAll   int
		checkAll bool
	}{
		{stages: 4, mean: 7.55},
		{stages: 8, mean: 31.65, maxAll: 72, checkAll: true},
	}
	for _, c := range cases {
		n := 10 * c.stages
		dt, err := Delays(pipeDreamTimeline(t, c.stages, n))
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(2*n + 2*c.stages - 2); dt.TimeSteps != want {
			t.Errorf("S=%d: %g time steps, want 2N+2S-2 = %g", c.stages, dt.TimeSteps, want)
		}
		if len(dt.Rows) != n*c.stages {
			t.Errorf("S=%d: %d block updates, want N·S = %d", c.stages, len(dt.Rows), n*c.stages)
		}
		st := dt.Stats(Steady)
		if want := DefaultDelta(c.stages); st.Max != want {
			t.Errorf("S=%d: steady max delay %d, want ⌊S² - S/2⌋ = %d", c.stages, st.Max, want)
		}
		if math.Abs(st.Mean-c.mean) > 0.005 {
			t.Errorf("S=%d: steady mean delay %.4f, want %.2f", c.stages, st.Mean, c.mean)
		}
		if c.checkAll {
			if got := dt.Stats(All).Max; got != c.maxAll {
				t.Errorf("S=%d: max over all rows %d, want %d", c.stages, got, c.maxAll)
			}
		}
		t.Logf("S=%d N=%d: steps %g, steady max %d mean %.4f p10 %.2f", c.stages, n, dt.TimeSteps, st.Max, st.Mean, st.P10)
	}
}
