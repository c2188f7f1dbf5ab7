package request

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

func generate(t *testing.T, kind string, p, m int) *pipeline.Table {
	t.Helper()
	tab, err := pipeline.Generate(kind, pipeline.Shape{Ranks: p, Microbatches: m})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// 1F1B with free messages takes (M + P − 1)(T_F + T_B) and leaves each
// rank idle (P − 1)(T_F + T_B) of it (Narayanan et al., SC21, §2.2: the
// bubble fraction (p − 1)/m of the ideal time, here of the makespan
// (P − 1)/(M + P − 1)).
func TestSimulateOneFOneBClosedForm(t *testing.T) {
	const p, m, tf, tb = 4, 8, 1.0, 2.0
	tab := generate(t, "1f1b", p, m)
	share := cost.Stage{TF: tf, TB: tb}
	rep, err := Simulate(context.Background(), SimulateRequest{Kind: "1f1b", Table: tab,
		Pricing: Pricing{Cost: cost.ForRankShare(tab, share, 0), Name: "explicit"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(m+p-1) * (tf + tb); rep.Makespan != want {
		t.Errorf("makespan %v, want (M+P-1)(T_F+T_B) = %v", rep.Makespan, want)
	}
	if want := float64(p-1) / float64(m+p-1); math.Abs(rep.BubbleRatio-want) > 1e-12 {
		t.Errorf("bubble ratio %v, want (P-1)/(M+P-1) = %v", rep.BubbleRatio, want)
	}
	if len(rep.Ranks) != p || rep.NumRanks != p || rep.Microbatches != m {
		t.Fatalf("report of %d ranks (%d, %d microbatches), want %d and %d", len(rep.Ranks), rep.NumRanks, rep.Microbatches, p, m)
	}
	for _, r := range rep.Ranks {
		if r.Busy != m*(tf+tb) {
			t.Errorf("rank %d busy %v, want M(T_F+T_B) = %v", r.Rank, r.Busy, m*(tf+tb))
		}
	}
	if rep.Timeline == nil || sim.Makespan(rep.Timeline) != rep.Makespan {
		t.Errorf("the report's timeline does not end at its makespan")
	}
	if rep.Iterations != nil || rep.Policy != "fixed" || rep.Hint != "" {
		t.Errorf("defaults: iterations %v, policy %q, hint %q; want none, fixed, none", rep.Iterations, rep.Policy, rep.Hint)
	}
}

// A request no simulation could run is refused as bad input, naming what
// is wrong, before anything is simulated.
func TestSimulateRefusesBadInput(t *testing.T) {
	tab := generate(t, "1f1b", 2, 4)
	unit := Pricing{Cost: cost.Unit{}, Name: "unit"}
	for _, tc := range []struct {
		name string
		req  SimulateRequest
		want string
	}{
		{"no table", SimulateRequest{Pricing: unit}, "simulate: no table"},
		{"no cost", SimulateRequest{Table: tab}, "simulate: no cost model"},
		{"iterations", SimulateRequest{Table: tab, Pricing: unit, Iterations: -1}, "--iterations must be at least 1, got -1"},
		{"straggler", SimulateRequest{Table: tab, Pricing: unit, Options: sim.Options{Variability: sim.Variability{Stragglers: map[int]float64{2: 1.5}}}},
			"--straggler 2:1.5: rank 2 is not among the table's 2 ranks (0 to 1)"},
		{"lockstep ready", SimulateRequest{Table: tab, Lockstep: true, Options: sim.Options{Policy: sim.Ready}},
			"--cost-model lockstep is PyTorch's fixed unit-time check: no --policy ready, variability or --iterations"},
	} {
		_, err := Simulate(context.Background(), tc.req)
		if !errors.Is(err, ErrBadInput) || err.Error() != tc.want {
			t.Errorf("%s: error %v, want bad input %q", tc.name, err, tc.want)
		}
	}
}

// A request whose context has ended stops with the context's error.
func TestSimulateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Simulate(ctx, SimulateRequest{Table: generate(t, "1f1b", 2, 4), Pricing: Pricing{Cost: cost.Unit{}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
