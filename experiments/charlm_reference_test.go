package experiments

import (
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestLMReferencesOnFigureLMs: every LM figure on the shipped text gets
// the count models' reference lines on its loss plots, and runs of
// another objective get none.
func TestLMReferencesOnFigureLMs(t *testing.T) {
	lm := []results.Run{{Objective: "charlm"}}
	for _, name := range []string{"delay-profiles-lm", "staleness-law-lm", "optimizers-under-delay", "lm-text", "remedies-lm-zb-h1"} {
		if figureSpec(name) == nil {
			t.Errorf("%s: no figure spec of that name", name)
			continue
		}
		if got := lmReferences(name, lm); len(got) != 1 {
			t.Errorf("%s: %d plot options, want the reference lines", name, len(got))
		}
	}
	if got := lmReferences("lm", lm); got != nil {
		t.Errorf("lm (the Markov lm figure): %d plot options, want none", len(got))
	}
	if got := lmReferences("delay-profiles-quadratic", []results.Run{{Objective: "quadratic"}}); got != nil {
		t.Errorf("a quadratic's runs: %d plot options, want none", len(got))
	}
}
