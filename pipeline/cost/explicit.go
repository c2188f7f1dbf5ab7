package cost

import "github.com/pipelab/pipelab/pipeline"

// Stage holds the compute times of one stage.
type Stage struct {
	TF, TB, TW float64
}

// Explicit prices actions from given times, the T_F, T_B, T_W of the Zero
// Bubble paper: TB is the input-gradient backward (I) and TW the
// weight-gradient backward (W), so a full backward B costs TB + TW. An
// OVERLAP_F_B runs its forward and its backward on one GPU and costs their
// sum. A transfer between two different ranks costs Comm, between stages
// on the same rank nothing.
type Explicit struct {
	TF, TB, TW float64
	Comm       float64
	// Stages overrides the times of stage s when s < len(Stages); later
	// stages take TF, TB and TW.
	Stages []Stage
	// Comms overrides Comm for the messages between stages s and s+1
	// (the activation forward, the gradient back) when s < len(Comms).
	Comms []float64
}

// stage returns the times of stage s.
func (e Explicit) stage(s int) Stage {
	if s >= 0 && s < len(e.Stages) {
		return e.Stages[s]
	}
	return Stage{TF: e.TF, TB: e.TB, TW: e.TW}
}

// Compute returns the time of a compute action; other kinds cost 0.
func (e Explicit) Compute(a pipeline.Action) float64 { return stageComputeTime(a, e.stage) }

// stageComputeTime prices a compute action from the times of its stages: a full
// backward B is the input- plus the weight-gradient time, an OVERLAP_F_B its
// forward plus its backward (both run on one GPU). Every cost model with
// per-stage T_F, T_B, T_W prices through it, so they cannot disagree on
// what an action costs.
func stageComputeTime(a pipeline.Action, stage func(int) Stage) float64 {
	switch a.Kind {
	case pipeline.Forward:
		return stage(a.Stage).TF
	case pipeline.Backward:
		c := stage(a.Stage)
		return c.TB + c.TW
	case pipeline.BackwardInput:
		return stage(a.Stage).TB
	case pipeline.BackwardWeight:
		return stage(a.Stage).TW
	case pipeline.OverlapFB:
		back := stage(a.BackStage)
		return stage(a.Stage).TF + back.TB + back.TW
	}
	return 0
}

// Transfer returns the time of the boundary a's message crosses (Comms,
// else Comm) between different ranks and 0 on one rank.
func (e Explicit) Transfer(a pipeline.Action, from, to int) float64 {
	if from == to {
		return 0
	}
	if b, ok := boundary(a); ok && b < len(e.Comms) {
		return e.Comms[b]
	}
	return e.Comm
}
