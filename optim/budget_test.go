package optim

import (
	"testing"

	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// Equal-time matching with budget 3180 (docs/reference.md §1.6, measured with
// the reference code): PipeDream's N for S = 2..64 follows from
// T = 2N + 2S - 2 (§1.2) and LocalSGD's (R = S, H = 5) from
// T = q(2RH + 2S - 2) + [r > 0](2r + 2S - 2) (§1.5).
func TestMatchBudgetPaperNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("generates about 250 timelines up to S = 64")
	}
	stages := []int{2, 4, 8, 16, 32, 64}
	pipedream := []int{1589, 1587, 1583, 1575, 1559, 1527}
	localsgd := []int{1445, 1381, 1352, 1335, 1311, 1281}
	for i, s := range stages {
		m, err := MatchBudget(3180, GridDuration("pipedream", pipeline.Shape{Ranks: s}))
		if err != nil {
			t.Fatal(err)
		}
		if m.Microbatches != pipedream[i] || m.Time != float64(2*m.Microbatches+2*s-2) || m.Overshoot != m.Time-3180 {
			t.Errorf("pipedream S=%d: %+v, want N = %d", s, m, pipedream[i])
		}
		m, err = MatchBudget(3180, GridDuration("localsgd", pipeline.Shape{Ranks: s, Replicas: s, LocalSteps: 5}))
		if err != nil {
			t.Fatal(err)
		}
		if m.Microbatches != localsgd[i] {
			t.Errorf("localsgd S=%d H=5: %+v, want N = %d", s, m, localsgd[i])
		}
		t.Logf("S=%d localsgd N=%d time %g overshoot %g", s, m.Microbatches, m.Time, m.Overshoot)
	}
}

// MatchBudget finds the smallest n reaching the budget for any
// non-decreasing duration, including steps and the n = 1 edge.
func TestMatchBudgetSearch(t *testing.T) {
	cases := []struct {
		name     string
		budget   float64
		duration func(int) float64
		want     int
		over     float64
	}{
		{"linear", 100, func(n int) float64 { return float64(3 * n) }, 34, 2},
		{"first already", 5, func(n int) float64 { return 10 + float64(n) }, 1, 6},
		{"plateaus", 50, func(n int) float64 { return float64(10 * (n / 4)) }, 20, 0},
	}
	for _, c := range cases {
		m, err := MatchBudget(c.budget, func(n int) (float64, error) { return c.duration(n), nil })
		if err != nil {
			t.Fatal(err)
		}
		if m.Microbatches != c.want || m.Overshoot != c.over {
			t.Errorf("%s: %+v, want n = %d overshoot %g", c.name, m, c.want, c.over)
		}
	}
	if _, err := MatchBudget(0, nil); err == nil {
		t.Error("zero budget accepted")
	}
}

// gridEnd reads the same end time as the timeline sim.FromGrid builds.
func TestGridEndMatchesFromGrid(t *testing.T) {
	for _, sh := range []pipeline.Shape{{Ranks: 4, Microbatches: 9, LocalSteps: 1}, {Ranks: 3, Microbatches: 7, LocalSteps: 2}} {
		for _, fam := range []string{"pipedream", "localsgd"} {
			tab, err := pipeline.Generate(fam, sh)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := float64(gridEnd(tab)), endTime(sim.FromGrid(tab)); got != want {
				t.Errorf("%s %+v: gridEnd %g, FromGrid ends at %g", fam, sh, got, want)
			}
		}
	}
}
