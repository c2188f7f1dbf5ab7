package tune

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// uniform is p stages of the Zero Bubble paper's 1.5B profile (Appendix
// D, docs/reference.md §5) with free transfers.
func uniform(p int) cost.Measured {
	m := cost.Measured{Source: "zb-1.5b"}
	for range p {
		m.Stages = append(m.Stages, cost.Stage{TF: 18.522e-3, TB: 18.086e-3, TW: 9.337e-3})
	}
	m.Comm = make([]float64, p-1)
	return m
}

// With uniform stages and free transfers the closed forms (docs/
// reference.md §2) rank the one-stage-per-rank schedules: ZB-H2 leaves a
// bubble of about (p - 1)(T_F + T_B - 2T_W), ZB-H1 (p - 1)(T_F + T_B - T_W),
// 1F1B and GPipe exactly (p - 1)(T_F + T_B + T_W), so ZB-H2 wins, against
// the 1F1B baseline; the schedules with 2P stages cannot run on P measured
// stages. The ZB-H2 form is the paper's for T_F = T_B = T_W; with this
// profile's unequal times the simulated table is within 0.5% of it.
func TestTuneMeasured(t *testing.T) {
	const p, m = 8, 24
	res, err := TuneMeasured(MeasuredProblem{Costs: uniform(p), Ranks: p, Microbatches: []int{m}})
	if err != nil {
		t.Fatal(err)
	}
	f, b, w := 18.522e-3, 18.086e-3, 9.337e-3
	zbh2 := (m*(f+b+w) + (p-1)*(f+b-2*w)) / m
	oneF1B := float64(m+p-1) * (f + b + w) / m
	if res.Best.Schedule.Family != "zb-h2" || math.Abs(res.Best.PerSample/zbh2-1) > 0.005 {
		t.Errorf("best %s at %g s per microbatch, want zb-h2 at %g", res.Best.Schedule, res.Best.PerSample, zbh2)
	}
	if res.Baseline.Schedule.Family != "1f1b" || math.Abs(res.Baseline.PerSample-oneF1B) > 1e-12 {
		t.Errorf("baseline %s at %g, want 1f1b at %g", res.Baseline.Schedule, res.Baseline.PerSample, oneF1B)
	}
	if math.Abs(res.Speedup-res.Baseline.PerSample/res.Best.PerSample) > 1e-12 || res.Speedup < 1.15 {
		t.Errorf("speedup %g: want baseline over best, about %g by the closed forms", res.Speedup, oneF1B/zbh2)
	}
	skipped := strings.Join(res.Skipped, "; ")
	if !strings.Contains(skipped, "interleaved-1f1b×2 with 24 microbatches") || !strings.Contains(skipped, "8 stages measured, the table has 16") {
		t.Errorf("skipped: %s", skipped)
	}
	if _, err := TuneMeasured(MeasuredProblem{Costs: uniform(6), Ranks: 4}); err == nil {
		t.Error("6 stages on 4 ranks: no error")
	}
}

// Under PostValidation measured candidates are ranked by their longest
// rank span: each one's time per microbatch is that span over the
// microbatches, no more than its makespan's, and the best has the least.
func TestTuneMeasuredPostValidation(t *testing.T) {
	st := cost.Stage{TF: 18.522e-3, TB: 18.086e-3, TW: 9.337e-3}
	m := cost.Measured{Source: "Appendix D, 1.5B", Stages: []cost.Stage{st, st, st, st}, Comm: []float64{0.601e-3, 0.601e-3, 0.601e-3}}
	res, err := TuneMeasured(MeasuredProblem{Costs: m, Ranks: 4, Microbatches: []int{12},
		Schedules: []Schedule{{"1f1b", 1}, {"zb-h2", 1}, {ZBAutoFamily, 1}}, PostValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		longest := slices.Max(sim.RankSpans(c.Timeline))
		if c.LongestSpan != longest || c.PerSample*12 != longest || longest > c.Makespan {
			t.Errorf("%s: span %g (timeline %g), per microbatch %g, makespan %g", c.Schedule, c.LongestSpan, longest, c.PerSample, c.Makespan)
		}
		if c.PerSample < res.Best.PerSample {
			t.Errorf("%s: %g per microbatch, below the best's %g", c.Schedule, c.PerSample, res.Best.PerSample)
		}
	}
}
