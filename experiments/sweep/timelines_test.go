package sweep

import (
	"context"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// claimSpec asks for timelines every way a run can (the first of the
// experiments package's claimSpecs, timelines_test.go): an asynchronous
// method on PipeDream's grid and on a named table, LocalSGD, RPD with and
// without a budget, and sync.
const claimSpec = `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2, 4]
time_budget: [60]
methods:
  - {name: pipedream, step_sizes: {values: [0.01]}}
  - {name: pd-nostash, kind: zb-h1, step_sizes: {values: [0.01]}}
  - {name: 2bw, step_sizes: {values: [0.01]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.01]}}
  - {name: rpd, deltas: [4, pipedream-mean, pipedream-profile], step_sizes: {values: [0.01]}}
  - {name: sync, step_sizes: {values: [0.01]}}
`

// A sweep drops each timeline of its runner's cache when the last run
// that needs it is done, and the cache ends empty; what a sweep writes
// does not change with it.
func TestSweepForgetsTimelinesWhenDone(t *testing.T) {
	s, err := experiments.ParseSpec("claims.yaml", []byte(claimSpec))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Expand()
	for _, jobs := range []int{1, 3} {
		var peak int
		cache := new(experiments.Timelines)
		rn := Runner{Dir: t.TempDir(), Jobs: jobs, Timelines: cache,
			Execute: func(ctx context.Context, r experiments.Run) (*results.Tables, error) {
				out, err := cache.Execute(ctx, r)
				held, _ := cache.Held()
				peak = max(peak, held)
				return out, err
			}}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
		if held, claims := cache.Held(); held != 0 || claims != 0 || peak == 0 {
			t.Errorf("jobs %d: %d timelines and %d claims left after the sweep, at most %d timelines cached", jobs, held, claims, peak)
		}
	}
}
