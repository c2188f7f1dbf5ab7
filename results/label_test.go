package results

import (
	"slices"
	"testing"
)

// The expected labels follow runLabels' rule by hand: a setting is shown
// when it differs among the runs of the same method; the seed only numbers
// replicates that nothing else tells apart.
func TestRunLabels(t *testing.T) {
	runs := []Run{
		{Method: "pipedream", StepSize: 0.125, Seed: 90},
		{Method: "rpd", Delta: 8, StepSize: 0.125, Seed: 70},
		{Method: "rpd", Delta: 60, StepSize: 0.0625, Seed: 50},
		{Method: "localsgd", LocalSteps: 5, Seed: 30},
		{Method: "localsgd", LocalSteps: 5, Seed: 10},
	}
	want := []string{"pipedream", "rpd δ=8 γ=0.125", "rpd δ=60 γ=0.0625", "localsgd #2", "localsgd #1"}
	if got := runLabels(runs); !slices.Equal(got, want) {
		t.Errorf("runLabels = %q, want %q", got, want)
	}
}

// Runs of one method that differ in their optimizer are told apart by it.
func TestRunLabelsOptimizer(t *testing.T) {
	runs := []Run{
		{Method: "pipedream", Optimizer: "sgd", Seed: 1},
		{Method: "pipedream", Optimizer: "adam b1=0.9 b2=0.999 eps=1e-08", Seed: 2},
		{Method: "2bw", Optimizer: "sgd", Seed: 3},
	}
	want := []string{"pipedream sgd", "pipedream adam b1=0.9 b2=0.999 eps=1e-08", "2bw"}
	if got := runLabels(runs); !slices.Equal(got, want) {
		t.Errorf("runLabels = %q, want %q", got, want)
	}
}
