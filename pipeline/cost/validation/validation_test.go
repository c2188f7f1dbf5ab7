package validation

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The calibration makes the 1.5B middle stage take exactly the measured
// T_F + T_B + T_W (Appendix D, docs/reference.md §5), and the activation
// rows equal their formulas.
func TestValidateTimingModel(t *testing.T) {
	v, err := ValidateTimingModel()
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	for _, r := range v.Rows {
		if r.Section == "stage" && r.Quantity != "T_comm" {
			sum[r.Config] += r.Predicted
		}
		if r.Section == "activations" && r.Predicted != r.Published {
			t.Errorf("%s: peak %g, formula %g", r.Quantity, r.Predicted, r.Published)
		}
	}
	if got, want := sum["1.5B (p 8, b 6)"], 18.522+18.086+9.337; math.Abs(got-want) > 1e-9 {
		t.Errorf("calibrated 1.5B stage: %g ms, want the measured %g", got, want)
	}
	if v.Efficiency <= 0 || v.Efficiency > 1 {
		t.Errorf("efficiency %g", v.Efficiency)
	}
}

// docs/validation.md shows what "pipelab validate" prints.
func TestValidationDocMatchesCommand(t *testing.T) {
	v, err := ValidateTimingModel()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "<!-- validate:begin -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- validate:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/validation.md has no validate:begin/end block")
	}
	if block != b.String() {
		t.Errorf("docs/validation.md's tables differ from the command's output; regenerate them with make validate:\n%s", b.String())
	}
}
