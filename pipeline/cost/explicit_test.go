package cost

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

func TestExplicitCompute(t *testing.T) {
	e := Explicit{TF: 2, TB: 3, TW: 5, Comm: 7, Stages: []Stage{{TF: 11, TB: 13, TW: 17}}}
	// Stage 0 takes its override, stage 1 the defaults; an unsplit B is
	// T_B + T_W (Zero Bubble paper's split, docs/reference.md §2).
	tests := []struct {
		a    pipeline.Action
		want float64
	}{
		{pipeline.F(0, 0), 11},
		{pipeline.B(0, 0), 13 + 17},
		{pipeline.I(0, 0), 13},
		{pipeline.W(0, 0), 17},
		{pipeline.F(1, 4), 2},
		{pipeline.B(1, 4), 3 + 5},
		{pipeline.I(1, 4), 3},
		{pipeline.W(1, 4), 5},
		{pipeline.Action{Kind: pipeline.OverlapFB, Stage: 1, Microbatch: 2, BackStage: 0, BackMicrobatch: 1}, 2 + 13 + 17},
		{pipeline.Act(pipeline.SendF, 1, 4), 0},
	}
	for _, tt := range tests {
		if got := e.Compute(tt.a); got != tt.want {
			t.Errorf("Explicit.Compute(%v) = %g, want %g", tt.a, got, tt.want)
		}
	}
}

func TestExplicitTransfer(t *testing.T) {
	e := Explicit{Comm: 7}
	send := pipeline.Act(pipeline.SendF, 0, 0)
	if got := e.Transfer(send, 0, 1); got != 7 {
		t.Errorf("between ranks 0 and 1: %g, want Comm = 7", got)
	}
	if got := e.Transfer(send, 1, 1); got != 0 {
		t.Errorf("on one rank: %g, want 0", got)
	}
}
