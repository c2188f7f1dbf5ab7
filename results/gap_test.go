package results

import (
	"math"
	"path/filepath"
	"testing"
)

// regimeRow is a selected run of the regime map.
func regimeRow(id, method string, s, n int32, noise float64, rep int32, loss float64) Run {
	r := Run{RunID: id, Experiment: "regime", Objective: "logistic", Method: method, Stages: s, N: n, D: 512,
		Noise: noise, Replicate: rep, CostModel: CostUnit, TimeBudget: 3180, Outcome: OutcomeOK,
		FinalLoss: loss, Selected: true}
	if method == "localsgd" {
		r.LocalSteps, r.Replicas = 5, s
	}
	return r
}

// TestRegimeCells pairs the methods by replicate: a cell of three
// replicates with gaps -0.1, 0.0 and +0.2 has mean 1/30, sample SD
// 0.152753 and a 95 % t interval of 1/30 ± 4.302653·0.152753/√3 =
// 1/30 ± 0.379458 (t with 2 degrees of freedom from a t table; computed
// by hand), one replicate of three with the mean's sign; a replicate where LocalSGD diverged and one
// where a run is not selected drop out of their cell; an unselected grid
// point never counts.
func TestRegimeCells(t *testing.T) {
	rows := []Run{
		regimeRow("a0", "pipedream", 8, 50, 0, 0, 0.5), regimeRow("b0", "localsgd", 8, 50, 0, 0, 0.4),
		regimeRow("a1", "pipedream", 8, 50, 0, 1, 0.6), regimeRow("b1", "localsgd", 8, 50, 0, 1, 0.6),
		regimeRow("a2", "pipedream", 8, 50, 0, 2, 0.3), regimeRow("b2", "localsgd", 8, 50, 0, 2, 0.5),
		regimeRow("c0", "pipedream", 8, 50, 1, 0, 1.0), regimeRow("d0", "localsgd", 8, 50, 1, 0, 0.5),
		regimeRow("c1", "pipedream", 8, 50, 1, 1, 1.0), regimeRow("d1", "localsgd", 8, 50, 1, 1, math.Inf(1)),
		regimeRow("c2", "pipedream", 8, 50, 1, 2, 1.0),
	}
	rows[9].Outcome = OutcomeDiverged
	extra := regimeRow("z", "localsgd", 8, 50, 0, 0, 0.01)
	extra.Selected = false // another step of the grid
	rows = append(rows, extra)
	cells, err := RegimeCells(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2", len(cells))
	}
	p := cells[0].Paired()
	if cells[0].Noise != 0 || len(cells[0].Replicates) != 3 || math.Abs(p.Mean-0.1/3) > 1e-12 ||
		math.Abs(p.High-p.Mean-0.379458) > 1e-5 || p.Agree != 1 || p.N != 3 || p.Holds() {
		t.Errorf("σ = 0 cell %+v: gap %v, want +0.033 [-0.346, +0.413], 1 of 3, no claim", cells[0], p)
	}
	if c := cells[1]; c.Noise != 1 || len(c.Replicates) != 1 || c.Replicates[0] != 0 || c.LogRatio() != -1 {
		t.Errorf("σ = 1 cell %+v (log ratio %g): want replicate 0 alone, LocalSGD at half PipeDream's loss", c, c.LogRatio())
	}
	if !RegimeRuns(rows) {
		t.Error("RegimeRuns: not a regime map")
	}
	dup := append(rows[:len(rows):len(rows)], regimeRow("e", "pipedream", 8, 50, 0, 0, 0.7))
	if _, err := RegimeCells(dup); err == nil {
		t.Error("two selected PipeDream runs in one cell and replicate were accepted")
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := PlotRegimeMap(filepath.Join(t.TempDir(), "map"+ext), rows); err != nil {
			t.Error(err)
		}
	}
	if err := PlotRegimeMap(filepath.Join(t.TempDir(), "map.png"), rows[10:11]); err == nil {
		t.Error("a map without pairs was drawn")
	}
}
