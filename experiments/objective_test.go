package experiments

import (
	"strings"
	"testing"
)

// Every known objective has a descriptor, an unknown name's error names
// them all, and NewObjective refuses it with that error.
func TestObjectiveNamed(t *testing.T) {
	for _, name := range KnownObjectives {
		if d, err := ObjectiveNamed(name); err != nil || d.Name != name {
			t.Errorf("ObjectiveNamed(%q) = %+v, %v", name, d, err)
		}
	}
	_, err := ObjectiveNamed("quadratik")
	if err == nil {
		t.Fatal("quadratik: no error")
	}
	for _, name := range KnownObjectives {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not name %s", err, name)
		}
	}
	if _, err := NewObjective(Run{Objective: "quadratik", N: 8, D: 4, Batch: 2}, 2); err == nil || !strings.Contains(err.Error(), "known: ") {
		t.Errorf("NewObjective(quadratik): %v, want the known names", err)
	}
}
