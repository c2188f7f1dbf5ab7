package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/results"
)

// A language model's loss curve drawn against the count models of its
// corpus (objectives/charlm.CountModelLosses): grey lines the curve is
// read against, each named with its level in the legend.
func ExampleWithReferenceLosses() {
	dir, err := os.MkdirTemp("", "results-reference")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	runs := []results.Run{{RunID: "a", Objective: "charlm", Method: "sync", Stages: 4, CostModel: results.CostUnit, Outcome: results.OutcomeOK, StepSize: 0.0035}}
	curves := []results.CurvePoint{
		{RunID: "a", Time: 0, BlockUpdates: 0, Loss: 4.19, ValidationLoss: 4.19},
		{RunID: "a", Time: 100, BlockUpdates: 400, Loss: 2.3, ValidationLoss: 2.4},
		{RunID: "a", Time: 200, BlockUpdates: 800, Loss: 1.9, ValidationLoss: 2.0},
	}
	refs := results.WithReferenceLosses(
		results.ReferenceLoss{Label: "unigram count model", Loss: 3.3473},
		results.ReferenceLoss{Label: "bigram count model", Loss: 2.4858},
		results.ReferenceLoss{Label: "trigram count model", Loss: 2.0492})
	fmt.Println(results.PlotLossVsUpdates(filepath.Join(dir, "loss.svg"), runs, curves, refs))
	// Output:
	// <nil>
}
