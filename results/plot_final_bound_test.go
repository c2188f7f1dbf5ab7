package results

import (
	"math"
	"testing"
)

// A final-loss line says where its selected step sat in its grid: "γ ≤"
// when at the smallest step at every S, "γ ≥" at the largest, "(fixed)"
// for a grid of one step, and the stage counts when only some are at an
// edge.
func TestFinalLegendMarksBounds(t *testing.T) {
	run := func(id string, s int32, step float64, bound string) Run {
		return Run{RunID: id, Method: "pipedream", Stages: s, StepSize: step, Outcome: OutcomeOK, FinalLoss: 1,
			Selected: true, SelectionBound: bound, Seed: 1}
	}
	for _, c := range []struct {
		name string
		runs []Run
		want string
	}{
		{"inside", []Run{run("a", 2, 0.25, ""), run("b", 4, 0.25, "")}, "pipedream, γ = 2^-2"},
		{"lower", []Run{run("a", 2, math.Ldexp(1, -9), BoundLower), run("b", 4, math.Ldexp(1, -9), BoundLower)}, "pipedream, γ ≤ 2^-9"},
		{"upper", []Run{run("a", 2, 4, BoundUpper)}, "pipedream, γ ≥ 2^2"},
		{"fixed", []Run{run("a", 2, 0.0625, BoundFixed)}, "pipedream, γ = 2^-4 (fixed)"},
		{"mixed", []Run{run("a", 2, 0.25, ""), run("b", 4, 0.5, BoundUpper), run("c", 8, 0.5, BoundUpper)},
			"pipedream, γ = 2^-2…2^-1, γ at grid top at S = 4, 8"},
	} {
		series, err := finalVsStages(c.runs)
		if err != nil {
			t.Fatal(err)
		}
		if got := series[0].legend(); got != c.want {
			t.Errorf("%s: legend %q, want %q", c.name, got, c.want)
		}
	}
}

// A time-to-target group whose selected step sat at an edge at some S says
// so in its label.
func TestTargetBarsMarkBounds(t *testing.T) {
	runs := []Run{
		{RunID: "a", Method: "sync", Optimizer: "adam b1=0.9", Stages: 4, Selected: true, Outcome: OutcomeOK, TimeToTarget: 1},
		{RunID: "b", Method: "sync", Optimizer: "adam b1=0.9", Stages: 16, Selected: true, Outcome: OutcomeOK, TimeToTarget: 2, SelectionBound: BoundUpper},
		{RunID: "c", Method: "pipedream", Optimizer: "adam b1=0.9", Stages: 4, Selected: true, Outcome: OutcomeOK, TimeToTarget: 1, SelectionBound: BoundFixed},
	}
	bars := TargetBars(runs)
	if got := boundText(bars, "sync adam"); got != " (γ at grid top at S = 16)" {
		t.Errorf("sync: %q", got)
	}
	if got := boundText(bars, "pipedream adam"); got != "" {
		t.Errorf("pipedream (fixed step): %q, want no mark", got)
	}
}
