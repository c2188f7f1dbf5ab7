package validation

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// blockingSends is a cost model whose point-to-point transfers block the
// rank that sends them, as Megatron-LM's 1F1B and interleaved 1F1B send
// them: after each forward and each backward the rank calls a batched
// send and receive (p2p_communication.send_forward_recv_backward and its
// kin in megatron/core/pipeline_parallel/schedules.py), waits on it and
// only then computes again. The rank's compute is charged share of the
// transfer its action sends, and the message travels in what is left of
// it: 1 for 1F1B, whose every forward and backward has its own call, and
// 1/2 for interleaved 1F1B, whose steady state sends a forward's output
// and a backward's gradient in one call
// (send_forward_backward_recv_forward_backward). The simulator itself
// lets a rank compute while its message is on the wire, as the Zero
// Bubble schedules' runtime does.
type blockingSends struct {
	model cost.Model
	table *pipeline.Table
	share float64
}

// megatronBlocking wraps m for table t of a Megatron-LM schedule family
// (1f1b, interleaved-1f1b); any other family is returned unchanged.
func megatronBlocking(m cost.Model, t *pipeline.Table, family string) cost.Model {
	switch family {
	case "1f1b":
		return blockingSends{m, t, 1}
	case "interleaved-1f1b":
		return blockingSends{m, t, 0.5}
	}
	return m
}

// Compute is the action's time plus the blocked share of the message it
// sends: a forward's activation to the next stage, a backward's gradient
// to the previous one.
func (b blockingSends) Compute(a pipeline.Action) float64 {
	d := b.model.Compute(a)
	switch {
	case a.Kind == pipeline.Forward && a.Stage+1 < b.table.Stages():
		d += b.share * b.model.Transfer(a, b.table.Rank(a.Stage), b.table.Rank(a.Stage+1))
	case (a.Kind == pipeline.Backward || a.Kind == pipeline.BackwardInput) && a.Stage > 0:
		d += b.share * b.model.Transfer(a, b.table.Rank(a.Stage), b.table.Rank(a.Stage-1))
	}
	return d
}

// Transfer is the share of the message's time the sender does not wait
// for.
func (b blockingSends) Transfer(a pipeline.Action, from, to int) float64 {
	return (1 - b.share) * b.model.Transfer(a, from, to)
}
