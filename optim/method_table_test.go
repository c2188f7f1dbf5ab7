package optim

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// A descriptor's Params are exactly the MethodOptions fields that change
// the method NewMethod builds: each field is set alone and the built
// method compared with the one built from zero options.
func TestMethodParamsReachTheMethod(t *testing.T) {
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 3, Microbatches: 6})
	if err != nil {
		t.Fatal(err)
	}
	tl := sim.FromGrid(tab)
	fields := []struct {
		p Param
		o MethodOptions
	}{
		{ParamAccumulate, MethodOptions{Accumulate: 3}},
		{ParamPipeMare, MethodOptions{PipeMareWarmup: 7, PipeMareDecay: 0.5}},
		{ParamDCLambda, MethodOptions{DCLambda: 0.3}},
		{ParamEFLambda, MethodOptions{EFLambda: 0.3}},
	}
	for _, d := range methodTable {
		base, err := NewMethod(d.Name, tl, MethodOptions{})
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		for _, f := range fields {
			m, err := NewMethod(d.Name, tl, f.o)
			if err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			if changed := !reflect.DeepEqual(m, base); changed != d.Takes(f.p) {
				t.Errorf("%s: option %b changes the method: %v, descriptor says it takes it: %v", d.Name, f.p, changed, d.Takes(f.p))
			}
		}
	}
}

// Only a method that samples its delays runs without a timeline, and only
// it is unclocked; the asynchronous methods are the ones whose built
// method is PipeDream or one of its remedies.
func TestMethodReplayTraits(t *testing.T) {
	remedies := map[reflect.Type]bool{}
	for _, m := range []Method{PipeDream{}, PipeDreamNoStash{}, TwoBW{}, PipeMare{}, Predict{}, DelayCompensation{}, ErrorFeedback{}} {
		remedies[reflect.TypeOf(m)] = true
	}
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 3, Microbatches: 6})
	if err != nil {
		t.Fatal(err)
	}
	tl := sim.FromGrid(tab)
	for _, d := range methodTable {
		_, err := NewMethod(d.Name, nil, MethodOptions{Delays: Uniform{Delta: 2, Stages: 3}})
		if sampled := err == nil; sampled != (d.Replay == ReplaySampled) || sampled == d.Clocked() {
			t.Errorf("%s: runs without a timeline: %v, replay %d, clocked %v", d.Name, sampled, d.Replay, d.Clocked())
		}
		m, err := NewMethod(d.Name, tl, MethodOptions{Iterations: 2})
		if err != nil {
			t.Fatal(err)
		}
		if remedies[reflect.TypeOf(m)] != d.Async() {
			t.Errorf("%s builds a %T; descriptor says asynchronous: %v", d.Name, m, d.Async())
		}
	}
}

// An unknown name is a settings error that names every known method.
func TestMethodNamedUnknown(t *testing.T) {
	_, err := MethodNamed("pd")
	if !errors.Is(err, ErrSettings) {
		t.Fatalf("got %v, want ErrSettings", err)
	}
	for _, name := range Methods {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not name %s", err, name)
		}
	}
	if d, ok := LookupMethod("pd"); ok || d.Clocked() || d.Async() || d.Takes(ParamAccumulate) {
		t.Errorf("LookupMethod(pd) = %+v, %v; want the zero descriptor", d, ok)
	}
}
