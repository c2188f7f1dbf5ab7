package optim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
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

// searchReference is the smallest n in 1..max with duration(n) ≥ budget,
// by scanning, or 0.
func searchReference(budget float64, duration func(int) float64, most int) int {
	for n := 1; n <= most; n++ {
		if duration(n) >= budget {
			return n
		}
	}
	return 0
}

// MatchBudget's guided search finds what a scan finds on durations of
// every shape a schedule gives (lines, lines with a fill, staircases of
// rounds, plateaus, concave and convex curves, random non-decreasing
// steps), and a duration linear in n costs it four calls where doubling
// and bisecting cost about 2·log₂ n.
func TestMatchBudgetFindsWhatAScanFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	walk := make([]float64, 5001)
	for i := 1; i < len(walk); i++ {
		walk[i] = walk[i-1] + float64(rng.IntN(3))*rng.Float64()
	}
	shapes := map[string]func(int) float64{
		"1f1b S=16":       func(n int) float64 { return float64(2*n + 30) },
		"gpu-like":        func(n int) float64 { return 0.9 + 0.0127*float64(n) },
		"localsgd rounds": func(n int) float64 { q, r := n/80, n%80; return float64(q*(160+30)) + float64(min(r, 1)*(2*r+30)) },
		"plateaus":        func(n int) float64 { return float64(10 * (n / 64)) },
		"sqrt":            func(n int) float64 { return math.Sqrt(float64(n)) },
		"square":          func(n int) float64 { return float64(n * n) },
		"random walk":     func(n int) float64 { return walk[min(n, len(walk)-1)] },
	}
	for name, d := range shapes {
		for _, budget := range []float64{0.5, 1, 7, 31.3, 100, 999.9, 3180, d(4000)} {
			want := searchReference(budget, d, 5000)
			if want == 0 {
				continue
			}
			calls := 0
			m, err := MatchBudget(budget, func(n int) (float64, error) { calls++; return d(n), nil })
			if err != nil || m.Microbatches != want || m.Time != d(want) {
				t.Errorf("%s, budget %g: %+v (%v), want n = %d", name, budget, m, err, want)
			}
			if limit := 2 * (2*bits.Len(uint(want)) + 2); calls > limit {
				t.Errorf("%s, budget %g: %d calls, more than %d", name, budget, calls, limit)
			}
			if name == "1f1b S=16" && want > 2 && calls > 4 {
				t.Errorf("%s, budget %g: %d calls for a line, want 4", name, budget, calls)
			}
		}
	}
	if _, err := MatchBudget(10, func(int) (float64, error) { return 1, nil }); err == nil {
		t.Error("a duration that never reaches the budget matched")
	}
}
