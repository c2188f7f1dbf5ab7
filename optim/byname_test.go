package optim

import (
	"errors"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Every name of Methods builds the method of that name, and an unknown
// name or a missing timeline is a settings error.
func TestNewMethodByName(t *testing.T) {
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: 3, Microbatches: 6})
	if err != nil {
		t.Fatal(err)
	}
	tl := sim.FromGrid(tab)
	for _, name := range Methods {
		m, err := NewMethod(name, tl, MethodOptions{Iterations: 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != name {
			t.Errorf("NewMethod(%q) is %q", name, m.Name())
		}
	}
	if _, err := NewMethod("pd", tl, MethodOptions{}); !errors.Is(err, ErrSettings) {
		t.Errorf("unknown name: %v, want ErrSettings", err)
	}
	if _, err := NewMethod("pipedream", nil, MethodOptions{}); !errors.Is(err, ErrSettings) {
		t.Errorf("no timeline: %v, want ErrSettings", err)
	}
	// rpd without a delay model replays the timeline's exact delays
	// (Delays), PipeDream's own.
	m, err := NewMethod("rpd", tl, MethodOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Delays(tl)
	if err != nil {
		t.Fatal(err)
	}
	got := m.(RPD).Delays
	if got.Bound() != exact.Bound() || got.Len() != exact.Len() || got.Len() != 6*3 {
		t.Errorf("rpd's delays: bound %d, %d rows; Delays: %d, %d rows (want N·S = 18)", got.Bound(), got.Len(), exact.Bound(), exact.Len())
	}
}
