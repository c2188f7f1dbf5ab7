package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateTorchRefusesChimera: PyTorch's loader runs every microbatch
// on every stage, so Chimera's file, whose two pipelines each forward half
// of the microbatches on a stage, is refused (issue 39: it was exported
// without a word); 1F1B's passes.
func TestValidateTorchRefusesChimera(t *testing.T) {
	ch, err := Generate("chimera", Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	err = ValidateTorch(TorchOrder(ch), "chimera.csv")
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "4 of its 8") && !strings.Contains(err.Error(), "4 of 8") {
		t.Errorf("Chimera: %v, want a refusal counting 4 of 8 microbatches", err)
	}
	f, err := Generate("1f1b", Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateTorch(TorchOrder(f), "1f1b.csv"); err != nil {
		t.Errorf("1F1B: %v", err)
	}
}
