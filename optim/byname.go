package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/sim"
)

// MethodOptions are the parameters only some methods take; a zero field
// takes the method's own default.
type MethodOptions struct {
	// Accumulate is 2bw's A (0: S).
	Accumulate int
	// PipeMareWarmup and PipeMareDecay are pipemare's T and D.
	PipeMareWarmup int
	PipeMareDecay  float64
	// DCLambda is dc's λ or dc-a's λ0.
	DCLambda float64
	// EFLambda is ef's λ (ef takes Accumulate as 2bw does).
	EFLambda float64
	// Iterations is sync's iteration count, or rpd's K (0: the delay
	// model's length).
	Iterations int
	// Delays is rpd's delay model; nil takes the exact delays of the
	// timeline (Delays), which replays PipeDream's own order of updates.
	Delays DelayModel
}

// NewMethod returns the method called name replaying timeline tl (nil
// only for rpd with o.Delays): the one place a method's name becomes its
// type.
func NewMethod(name string, tl *sim.Timeline, o MethodOptions) (Method, error) {
	d, err := MethodNamed(name)
	if err != nil {
		return nil, err
	}
	if tl == nil && (d.Replay != ReplaySampled || o.Delays == nil) {
		return nil, fmt.Errorf("%w: %s needs a timeline", ErrSettings, name)
	}
	switch name {
	case "pipedream":
		return PipeDream{Timeline: tl}, nil
	case "pd-nostash":
		return PipeDreamNoStash{Timeline: tl}, nil
	case "2bw":
		return TwoBW{Timeline: tl, Accumulate: o.Accumulate}, nil
	case "pipemare":
		return PipeMare{Timeline: tl, Warmup: o.PipeMareWarmup, Decay: o.PipeMareDecay}, nil
	case "predict":
		return Predict{Timeline: tl}, nil
	case "dc":
		return DelayCompensation{Timeline: tl, Lambda: o.DCLambda}, nil
	case "dc-a":
		return DelayCompensation{Timeline: tl, Lambda: o.DCLambda, Adaptive: true}, nil
	case "ef":
		return ErrorFeedback{Timeline: tl, Accumulate: o.Accumulate, Lambda: o.EFLambda}, nil
	case "localsgd":
		return LocalSGD{Timeline: tl}, nil
	case "sync":
		return Sync{Timeline: tl, Iterations: o.Iterations}, nil
	case "rpd":
		if o.Delays != nil {
			return RPD{Delays: o.Delays, Iterations: o.Iterations}, nil
		}
		exact, err := Delays(tl)
		return RPD{Delays: exact, Iterations: o.Iterations}, err
	}
	return nil, fmt.Errorf("%w: method %s has a descriptor but no constructor", ErrSettings, name)
}
