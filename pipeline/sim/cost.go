package sim

import "pipelab/pipeline"

// CostModel prices the actions of a table. Durations are in the model's
// time unit: steps for unit and explicit integer costs, seconds for the GPU
// timing model.
type CostModel interface {
	// Compute returns how long compute action a (F, B, I, W or
	// OVERLAP_F_B) takes. A full backward B costs T_B + T_W.
	Compute(a pipeline.Action) float64
	// Transfer returns how long the point-to-point message that a sends
	// (the activation of a forward, SEND_F, or the input gradient of a
	// backward, SEND_B) takes from rank from to rank to, latency included.
	// It is zero when from == to.
	Transfer(a pipeline.Action, from, to int) float64
}

// MemoryModel prices what a rank holds. Models without one are counted in
// microbatches of activations only.
type MemoryModel interface {
	// ActivationBytes is what a forward of stage s keeps until its
	// backward frees it (M_B of the Zero Bubble paper).
	ActivationBytes(stage int) float64
	// StaticBytes is what stage s holds for the whole run: weights,
	// gradients and optimizer state.
	StaticBytes(stage int) float64
}
