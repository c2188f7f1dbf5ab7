package optim

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// TestProgressSeesTheRunAndChangesNothing: Settings.Progress is told the
// block updates done, rising, about a thousand times at most, ending at
// the run's total (N·S = 4000 block updates here, Result.BlockUpdates); and
// the run with it is identical, bit for bit, to the run without it.
func TestProgressSeesTheRunAndChangesNothing(t *testing.T) {
	const stages, n = 4, 1000
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: n})
	obj := quadratic(t, 80, 30, stages, 10, 2)
	for _, m := range []struct {
		name   string
		method Method
	}{
		{"pipedream", PipeDream{Timeline: tl}},
		{"rpd", RPD{Delays: Uniform{Stages: stages, Delta: 6, Microbatches: n}}},
	} {
		t.Run(m.name, func(t *testing.T) {
			set := Settings{StepSize: 0.01, Seed: 1}
			plain := mustRun(t, obj, m.method, set)
			var done []int
			set.Progress = func(d, total int) {
				if total != stages*n {
					t.Fatalf("total %d, want N·S = %d", total, stages*n)
				}
				done = append(done, d)
			}
			watched := mustRun(t, obj, m.method, set)
			identicalResults(t, "with Progress vs without", watched, plain)
			if len(done) < 100 || len(done) > 1001 {
				t.Errorf("%d progress calls, want between 100 and about a thousand", len(done))
			}
			for i := 1; i < len(done); i++ {
				if done[i] <= done[i-1] {
					t.Fatalf("progress went from %d to %d", done[i-1], done[i])
				}
			}
			if len(done) > 0 && done[len(done)-1] != plain.BlockUpdates {
				t.Errorf("last progress %d, want the run's %d block updates", done[len(done)-1], plain.BlockUpdates)
			}
		})
	}
}
