package sweep

import (
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// TestSpecIDFrozen: examples/tiny.yaml still has the spec_id that
// docs/sweeps.md quotes from a sweep of the release before the renames of
// issue 14 (experiments' TestCanonicalNamesFrozen checks its run ids).
func TestSpecIDFrozen(t *testing.T) {
	tiny, err := experiments.ReadSpecFile("../../examples/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := NewDataset(tiny.Name, tiny.Expand(), Shard{}).SpecID; got != "863b02415be80d8e" {
		t.Errorf("examples/tiny.yaml's spec_id is %s, docs/sweeps.md's 863b02415be80d8e", got)
	}
}
