package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
)

// A replay of the LM whose losses are evaluated on several workers
// and whose products' rows are spread over them (charlm's
// Config.Workers) records the one-worker run's loss curve bit
// for bit: every record's training and validation loss compared with ==
// against Workers = 1, for sync, PipeDream and error feedback (a remedy).
func TestCharLMWorkersSameCurves(t *testing.T) {
	text, _ := charlm.MarkovCorpus(1, 20000)
	// Embed 16, SeqLen 16, Batch 4: 64 tokens, products large enough for
	// charlm to spread their rows over the workers.
	cfg := charlm.Config{Stages: 3, Embed: 16, Heads: 2, SeqLen: 16, Batch: 4, EvalBatches: 5, Seed: 1}
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 3, Microbatches: 24})
	flush := generate(t, "1f1b", pipeline.Shape{Ranks: 3, Microbatches: 3})
	methods := []Method{
		Sync{Timeline: flush, Iterations: 8},
		PipeDream{Timeline: tl},
		ErrorFeedback{Timeline: tl, Lambda: DefaultEFLambda},
	}
	set := Settings{StepSize: 0.01, LogEvery: 4, Optimizer: Optimizer{Algorithm: Adam}}
	for _, m := range methods {
		var want *Result
		for _, workers := range []int{1, 2, 3} {
			cfg.Workers = workers
			lm, err := charlm.New(cfg, text)
			if err != nil {
				t.Fatal(err)
			}
			res := mustRun(t, lm, m, set)
			if workers == 1 {
				want = res
				if len(res.Records) < 3 || math.IsNaN(res.Records[len(res.Records)-1].ValidationLoss) {
					t.Fatalf("%s: %d records, the last without a validation loss; want several with one", m.Name(), len(res.Records))
				}
				continue
			}
			sameCurve(t, m.Name(), workers, want, res)
		}
	}
}

func sameCurve(t *testing.T, method string, workers int, want, got *Result) {
	t.Helper()
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%s, %d workers: %d records, one worker %d", method, workers, len(got.Records), len(want.Records))
	}
	for i, r := range got.Records {
		w := want.Records[i]
		if r.Updates != w.Updates || math.Float64bits(r.Loss) != math.Float64bits(w.Loss) ||
			math.Float64bits(r.ValidationLoss) != math.Float64bits(w.ValidationLoss) {
			t.Errorf("%s, %d workers: record %d is %+v, one worker %+v", method, workers, i, r, w)
		}
	}
}
