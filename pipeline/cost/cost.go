package cost

import "github.com/pipelab/pipelab/pipeline"

// Model prices the actions of a table. Durations are in the model's
// time unit: steps for unit and explicit integer costs, seconds for the GPU
// timing model.
type Model interface {
	// Compute returns how long compute action a (F, B, I, W or
	// OVERLAP_F_B) takes. A full backward B costs T_B + T_W.
	Compute(a pipeline.Action) float64
	// Transfer returns how long the point-to-point message that a sends
	// (the activation of a forward, SEND_F, or the input gradient of a
	// backward, SEND_B) takes from rank from to rank to, latency included.
	// It is zero when from == to.
	Transfer(a pipeline.Action, from, to int) float64
}

// Memory prices what a rank holds. Models without one are counted in
// microbatches of activations only.
type Memory interface {
	// ActivationBytes is what a forward of stage s keeps until its
	// backward frees it (M_B of the Zero Bubble paper); a split backward
	// frees it in two parts, see WeightGradMemory.
	ActivationBytes(stage int) float64
	// StaticBytes is what stage s holds for the whole run: weights,
	// gradients and optimizer state.
	StaticBytes(stage int) float64
}

// WeightGradMemory is a Memory that also knows M_W, what a forward's
// activation shrinks to once the input-gradient backward (I) of a split
// backward has run: only the inputs of the linear layers and the gradients
// of their outputs, which the weight-gradient backward (W) needs (Zero
// Bubble, arXiv 2401.10241; docs/reference.md §2: "B keeps sb(34h + 5as) bytes
// of activations, W 32sbh"). Under such a model, when a table splits a
// backward, its F adds M_B, its I frees M_B − M_W and its W frees M_W; an
// unsplit B frees M_B. A Memory without the method is taken to have
// M_W = M_B: I frees nothing and W frees all.
type WeightGradMemory interface {
	Memory
	// WeightGradBytes is M_W of stage s, at most ActivationBytes(s).
	WeightGradBytes(stage int) float64
}

// WeightGradBytes returns M_W of stage s under mem: WeightGradBytes when
// mem has it, ActivationBytes otherwise.
func WeightGradBytes(mem Memory, s int) float64 {
	if wg, ok := mem.(WeightGradMemory); ok {
		return wg.WeightGradBytes(s)
	}
	return mem.ActivationBytes(s)
}

// MessageSizer gives the bytes of the message a SEND action carries; the
// GPU timing model is one.
type MessageSizer interface {
	MessageBytes(a pipeline.Action) float64
}
