package pipeline

import "fmt"

// Kind is the type of one action in a schedule table. The zero Kind is a
// bubble: the rank does nothing in that cell.
type Kind uint8

// The action kinds of torch.distributed.pipelining (docs/reference.md §3).
const (
	Bubble         Kind = iota // empty cell
	Forward                    // F: forward of one microbatch on one stage
	Backward                   // B: full backward (input and weight gradient)
	BackwardInput              // I: backward for the input gradient only
	BackwardWeight             // W: backward for the weight gradient only
	SendF                      // SEND_F: send a forward activation to the next stage
	RecvF                      // RECV_F: receive a forward activation from the previous stage
	SendB                      // SEND_B: send an input gradient to the previous stage
	RecvB                      // RECV_B: receive an input gradient from the next stage
	ReduceGrad                 // REDUCE_GRAD: reduce a stage's gradients (no microbatch)
	Unshard                    // UNSHARD: gather a stage's sharded weights (no microbatch)
	Reshard                    // RESHARD: free a stage's gathered weights (no microbatch)
	OverlapFB                  // OVERLAP_F_B: a forward and a backward run overlapped
)

var kindNames = [...]string{
	Bubble:         "",
	Forward:        "F",
	Backward:       "B",
	BackwardInput:  "I",
	BackwardWeight: "W",
	SendF:          "SEND_F",
	RecvF:          "RECV_F",
	SendB:          "SEND_B",
	RecvB:          "RECV_B",
	ReduceGrad:     "REDUCE_GRAD",
	Unshard:        "UNSHARD",
	Reshard:        "RESHARD",
	OverlapFB:      "OVERLAP_F_B",
}

// String returns the kind's name as PyTorch writes it ("F", "SEND_F", ...);
// a bubble is the empty string.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the kind PyTorch writes as s.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name == s && k != int(Bubble) {
			return Kind(k), nil
		}
	}
	return Bubble, fmt.Errorf("pipeline: unknown action kind %q", s)
}

// IsCompute reports whether the kind runs on a rank's compute stream.
func (k Kind) IsCompute() bool {
	switch k {
	case Forward, Backward, BackwardInput, BackwardWeight, OverlapFB:
		return true
	}
	return false
}

// IsComm reports whether the kind is a point-to-point transfer.
func (k Kind) IsComm() bool {
	switch k {
	case SendF, RecvF, SendB, RecvB:
		return true
	}
	return false
}

// HasMicrobatch reports whether actions of this kind name a microbatch.
func (k Kind) HasMicrobatch() bool {
	switch k {
	case Bubble, ReduceGrad, Unshard, Reshard:
		return false
	}
	return true
}

// slot numbers the kinds F, B, I, W, SEND_F, RECV_F, SEND_B and RECV_B
// densely from 0, in the order of their constants, so that a table indexed
// by kind can be an array; it is -1 for every other kind. The compute kinds
// come first: slots 0 to computeKinds-1 are F, B, I and W.
func (k Kind) slot() int {
	if k < Forward || k > RecvB {
		return -1
	}
	return int(k - Forward)
}

// Numbers of slots: of the compute kinds F, B, I, W, and of every kind
// that has one.
const (
	computeKinds = int(BackwardWeight-Forward) + 1
	slottedKinds = int(RecvB-Forward) + 1
)

// NoMicrobatch is the Microbatch of an action that has none (REDUCE_GRAD,
// UNSHARD, RESHARD, bubbles).
const NoMicrobatch = -1

// Action is one cell of a schedule table: a kind applied to a stage and,
// for most kinds, a microbatch. Action is comparable and may be used as a
// map key. The zero Action is a bubble.
//
// An OverlapFB action pairs a forward (Stage, Microbatch) with a backward
// (BackStage, BackMicrobatch); for every other kind the Back fields are zero.
type Action struct {
	Kind       Kind
	Stage      int
	Microbatch int

	BackStage      int
	BackMicrobatch int
}

// Act returns the action of kind k on stage s for microbatch mb.
func Act(k Kind, s, mb int) Action { return Action{Kind: k, Stage: s, Microbatch: mb} }

// F returns the forward of microbatch mb on stage s.
func F(s, mb int) Action { return Act(Forward, s, mb) }

// B returns the full backward of microbatch mb on stage s.
func B(s, mb int) Action { return Act(Backward, s, mb) }

// I returns the input-gradient backward of microbatch mb on stage s.
func I(s, mb int) Action { return Act(BackwardInput, s, mb) }

// W returns the weight-gradient backward of microbatch mb on stage s.
func W(s, mb int) Action { return Act(BackwardWeight, s, mb) }

// IsBubble reports whether a is an empty cell.
func (a Action) IsBubble() bool { return a.Kind == Bubble }

// String formats a as PyTorch does: stage, kind, microbatch ("2F0",
// "1SEND_B3", "0REDUCE_GRAD", "(0F7;7B3)OVERLAP_F_B"); a bubble is "".
func (a Action) String() string {
	switch {
	case a.Kind == Bubble:
		return ""
	case a.Kind == OverlapFB:
		return fmt.Sprintf("(%dF%d;%dB%d)OVERLAP_F_B", a.Stage, a.Microbatch, a.BackStage, a.BackMicrobatch)
	case !a.Kind.HasMicrobatch():
		return fmt.Sprintf("%d%s", a.Stage, a.Kind)
	}
	return fmt.Sprintf("%d%s%d", a.Stage, a.Kind, a.Microbatch)
}

// subActions returns the single actions a stands for: the forward and the
// backward of an OVERLAP_F_B, a itself otherwise, nothing for a bubble.
func subActions(a Action) []Action {
	switch a.Kind {
	case Bubble:
		return nil
	case OverlapFB:
		return []Action{F(a.Stage, a.Microbatch), B(a.BackStage, a.BackMicrobatch)}
	}
	return []Action{a}
}
