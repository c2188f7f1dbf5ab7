package optim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// TestLogPointsSetsTheLogGrid: with LogEvery zero a run records every
// ⌊K/LogPoints⌋ block updates, plus its start (and its end when the grid
// misses it); K = N·S for PipeDream (docs/reference.md §1.2).
func TestLogPointsSetsTheLogGrid(t *testing.T) {
	const stages, microbatches = 4, 60
	obj := logistic(t, 40, 8, stages, 4, 0, 1)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	total := stages * microbatches
	for _, records := range []int{0, 10, 30, 1000} {
		res, err := Run(obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, Seed: 1, LogPoints: records})
		if err != nil {
			t.Fatal(err)
		}
		every := total / DefaultRecords
		if records > 0 {
			every = max(1, total/records)
		}
		want := 1 + total/every // the start, then every `every` updates
		if total%every != 0 {
			want++ // the end
		}
		if got := len(res.Records); got != want {
			t.Errorf("LogPoints %d: %d records, want %d (every %d of %d updates)", records, got, want, every, total)
		}
	}
	if _, err := Run(obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, LogPoints: -1}); err == nil {
		t.Error("LogPoints -1 accepted")
	}
}
