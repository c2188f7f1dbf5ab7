package results

import (
	"fmt"
	"slices"
	"testing"
)

// The reference curves of the delay plot span every stage count drawn,
// whatever order the rows come in: the table sorts by run id, a hash, so
// the last row is not the largest S (the curves of an earlier version
// stopped at S = 4 of 2..32).
func TestDelayCurvesSpanAllStages(t *testing.T) {
	stats := delayStats() // S = 2, 4, ..., 64
	for i := range stats {
		stats[i].RunID = fmt.Sprintf("run-%d", len(stats)-i) // S = 64 sorts first by id
	}
	for _, cv := range delayCurves(byStages(stats), []string{WindowSteady}) {
		if lo, hi := cv.xy[0].X, cv.xy[len(cv.xy)-1].X; lo != 2 || hi != 64 {
			t.Errorf("%s spans S = %g..%g, want 2..64", cv.label, lo, hi)
		}
	}
}

// Legend lines sort by the values of their settings, not as text: H = 2
// before H = 10 and γ = 2^-10 before γ = 2^-5 (as text both come the other
// way round).
func TestLegendOrderNumeric(t *testing.T) {
	var runs []Run
	for _, h := range []int32{30, 10, 2} {
		for _, step := range []float64{1.0 / 32, 1.0 / 1024} {
			runs = append(runs, Run{RunID: fmt.Sprintf("h%d-%g", h, step), Objective: "logistic", Method: "localsgd",
				Stages: 4, LocalSteps: h, StepSize: step, Outcome: OutcomeOK, FinalLoss: 1, CostModel: CostUnit})
		}
	}
	want := []string{
		"localsgd, H = 2, γ = 2^-10", "localsgd, H = 2, γ = 2^-5",
		"localsgd, H = 10, γ = 2^-10", "localsgd, H = 10, γ = 2^-5",
		"localsgd, H = 30, γ = 2^-10", "localsgd, H = 30, γ = 2^-5",
	}
	series, err := finalVsStages(runs)
	if err != nil {
		t.Fatal(err)
	}
	var final []string
	for _, s := range series {
		final = append(final, s.legend())
	}
	if !slices.Equal(final, want) {
		t.Errorf("final-loss legend %q, want %q", final, want)
	}

	var curves []CurvePoint
	for _, r := range runs {
		curves = append(curves, CurvePoint{RunID: r.RunID, Time: 0, Loss: 2}, CurvePoint{RunID: r.RunID, Time: 1, Loss: 1})
	}
	lines, err := curveLines(runs, curves, func(p *CurvePoint) float64 { return p.Time })
	if err != nil {
		t.Fatal(err)
	}
	var loss []string
	for _, l := range lines {
		loss = append(loss, l.Label)
	}
	if !slices.Equal(loss, want) {
		t.Errorf("loss legend %q, want %q", loss, want)
	}
}

func TestCompareLabels(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"pd, δ = 8", "pd, δ = 60", -1},
		{"pd, γ = 2^-10", "pd, γ = 2^-5", -1},
		{"pd, γ = 2^-1", "pd, γ = 0.25", 1},
		{"localsgd", "pipedream", -1},
		{"pd", "pd, H = 2", -1},
		{"pd, H = 2", "pd, H = 2", 0},
		{"pd, cost = gpu", "pd, cost = unit", -1}, // not numbers: as text
	} {
		if got := compareLabels(tc.a, tc.b); got != tc.want {
			t.Errorf("compareLabels(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
