package results

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

// The expected labels follow runLabels' rule by hand: a setting is shown
// when it differs among the runs of the same method, the step size always;
// the seed only numbers replicates that nothing else tells apart.
func TestRunLabels(t *testing.T) {
	runs := []Run{
		{Method: "pipedream", StepSize: 0.125, Seed: 90},
		{Method: "rpd", Delta: 8, StepSize: 0.125, Seed: 70},
		{Method: "rpd", Delta: 60, StepSize: 0.0625, Seed: 50},
		{Method: "localsgd", LocalSteps: 5, StepSize: 0.03, Seed: 30},
		{Method: "localsgd", LocalSteps: 5, StepSize: 0.03, Seed: 10},
	}
	want := []string{"pipedream, γ = 2^-3", "rpd, δ = 8, γ = 2^-3", "rpd, δ = 60, γ = 2^-4",
		"localsgd, γ = 0.03 #2", "localsgd, γ = 0.03 #1"}
	if got := runLabels(runs); !slices.Equal(got, want) {
		t.Errorf("runLabels = %q, want %q", got, want)
	}
}

// Runs of one method that differ in their optimizer are told apart by its
// name, or by its whole label where two share the name.
func TestRunLabelsOptimizer(t *testing.T) {
	runs := []Run{
		{Method: "pipedream", Optimizer: "sgd", Seed: 1},
		{Method: "pipedream", Optimizer: "adam b1=0.9 b2=0.999 eps=1e-08", Seed: 2},
		{Method: "2bw", Optimizer: "sgd", Seed: 3},
	}
	want := []string{"pipedream, sgd, γ = 0", "pipedream, adam, γ = 0", "2bw, γ = 0"}
	if got := runLabels(runs); !slices.Equal(got, want) {
		t.Errorf("runLabels = %q, want %q", got, want)
	}
	runs[0].Optimizer = "adam b1=0.5 b2=0.999 eps=1e-08"
	want = []string{"pipedream, adam b1=0.5 b2=0.999 eps=1e-08, γ = 0", "pipedream, adam b1=0.9 b2=0.999 eps=1e-08, γ = 0", "2bw, γ = 0"}
	if got := runLabels(runs); !slices.Equal(got, want) {
		t.Errorf("two Adams: runLabels = %q, want %q", got, want)
	}
}

// TestFormatStep: powers of two are written exactly as 2^k, whatever k
// (math.Ldexp builds them exactly); anything else by its value.
func TestFormatStep(t *testing.T) {
	for _, k := range []int{-30, -12, -5, -1, 0, 1, 3} {
		want := "2^" + strconv.Itoa(k)
		if got := formatStep(math.Ldexp(1, k)); got != want {
			t.Errorf("formatStep(2^%d) = %q, want %q", k, got, want)
		}
	}
	for step, want := range map[float64]string{0.03: "0.03", 0.1: "0.1", 3 * 0.0625: "0.1875", 1.0 / 3: "0.3333"} {
		if got := formatStep(step); got != want {
			t.Errorf("formatStep(%g) = %q, want %q", step, got, want)
		}
	}
}
