package validation

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// TestActionGap: 1F1B on P = 2 ranks and M = 3 microbatches with F = B =
// 1 and no transfer time takes 2(M + P − 1) = 8 (the schedule's closed
// form); a gap g before every action makes each action 1 + g, so the
// same chain takes 8(1 + g).
func TestActionGap(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 3})
	if err != nil {
		t.Fatal(err)
	}
	costs := cost.Explicit{TF: 1, TB: 1}
	for _, g := range []float64{0, 0.25, 1} {
		tl, err := sim.Simulate(tab, actionGap{costs, g}, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sim.Makespan(tl), 8*(1+g); math.Abs(got-want) > 1e-12 {
			t.Errorf("gap %g: makespan %g, want %g", g, got, want)
		}
	}
}

// The gap is calibrated on its one row: that row is marked "in" and its
// prediction equals the published throughput (to the bisection's
// nanosecond), and every other throughput row stays a prediction.
func TestActionGapCalibratedOnItsRow(t *testing.T) {
	v := validated(t)
	if !(v.ActionGap > 0 && v.ActionGap < 0.010) {
		t.Fatalf("action gap %g s, want inside (0, 10 ms)", v.ActionGap)
	}
	found := 0
	for _, r := range v.Rows {
		if r.Section != "throughput" {
			continue
		}
		if r.Quantity == gapRow && r.Config == "1.5B (p 8, b 6)" {
			found++
			if r.Calibration != "in" || math.Abs(r.Predicted/r.Published-1) > 1e-5 {
				t.Errorf("%s %s: %g against %g, calibration %q; want equal and in", r.Config, r.Quantity, r.Predicted, r.Published, r.Calibration)
			}
		} else if r.Calibration != "out" {
			t.Errorf("%s %s: calibration %q, want out", r.Config, r.Quantity, r.Calibration)
		}
	}
	if found != 1 {
		t.Errorf("%d rows named %q on 1.5B, want 1", found, gapRow)
	}
}

// The hardware file's action gap (cost.GPUConfig.ActionGap, what users'
// simulate, compare and tune runs take) is the validation's actionGap: the
// calibrated 1.5B model with the gap in its config and the model without
// it wrapped in actionGap give the same timeline, to the last bit, on
// 1F1B, ZB-H1 and the interleaved 1F1B of one layer a chunk.
func TestConfigActionGapIsTheValidationsGap(t *testing.T) {
	v := validated(t)
	hw, err := cost.ParseHardware(zbCluster, "hardware/zb-a100-roce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := zbSetups[0]
	cfg := s.config(hw, clusterKnobs{efficiency: v.Efficiency, passes: v.ElementwisePasses})
	gapped := cfg
	gapped.ActionGap = v.ActionGap
	for _, tc := range []struct {
		family string
		chunks int
		parts  []int
	}{{"1f1b", 1, ones(s.ranks, 3)}, {"zb-h1", 1, ones(s.ranks, 3)}, {"interleaved-1f1b", 3, ones(3*s.ranks, 1)}} {
		plain, err := cost.NewGPUModelPartition(cfg, tc.parts)
		if err != nil {
			t.Fatal(err)
		}
		with, err := cost.NewGPUModelPartition(gapped, tc.parts)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := pipeline.Generate(tc.family, pipeline.Shape{Ranks: s.ranks, Microbatches: s.m, Chunks: tc.chunks})
		if err != nil {
			t.Fatal(err)
		}
		a, err := sim.Simulate(tab, actionGap{plain, v.ActionGap}, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Simulate(tab, with, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sim.Makespan(a) != sim.Makespan(b) || sim.Makespan(a) <= sim.Makespan(mustSimulate(t, tab, plain)) {
			t.Errorf("%s: makespan %g s with the wrapper, %g with the config's gap", tc.family, sim.Makespan(a), sim.Makespan(b))
		}
	}
}

func mustSimulate(t *testing.T, tab *pipeline.Table, m cost.Model) *sim.Timeline {
	t.Helper()
	tl, err := sim.Simulate(tab, m, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}
