package cost

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

func TestUnitCosts(t *testing.T) {
	// Unit time (docs/reference.md §1.2, §3): one step per compute cell, free
	// communication.
	tests := []struct {
		a    pipeline.Action
		want float64
	}{
		{pipeline.F(0, 0), 1},
		{pipeline.B(3, 2), 1},
		{pipeline.I(1, 1), 1},
		{pipeline.W(1, 1), 1},
		{pipeline.Action{Kind: pipeline.OverlapFB, Stage: 0, Microbatch: 7, BackStage: 7, BackMicrobatch: 3}, 1},
		{pipeline.Act(pipeline.SendF, 0, 0), 0},
		{pipeline.Action{Kind: pipeline.ReduceGrad, Microbatch: pipeline.NoMicrobatch}, 0},
	}
	for _, tt := range tests {
		if got := (Unit{}).Compute(tt.a); got != tt.want {
			t.Errorf("Unit.Compute(%v) = %g, want %g", tt.a, got, tt.want)
		}
		if got := (Unit{}).Transfer(tt.a, 0, 1); got != 0 {
			t.Errorf("Unit.Transfer(%v, 0, 1) = %g, want 0", tt.a, got)
		}
	}
}
