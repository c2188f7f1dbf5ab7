package experiments

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// resetTimelines empties the cache and its claims.
func resetTimelines() {
	timelines.Lock()
	timelines.m, timelines.claims = nil, nil
	timelines.Unlock()
}

// cachedKeys lists the keys the cache holds.
func cachedKeys() []pipeKey {
	timelines.Lock()
	defer timelines.Unlock()
	return slices.Collect(maps.Keys(timelines.m))
}

// keySet counts keys, so that two lists compare as sets.
func keySet(keys []pipeKey) map[pipeKey]bool {
	m := map[pipeKey]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// claimSpecs hold every way a run asks for a timeline: an asynchronous
// method on PipeDream's grid and on a named table, LocalSGD, RPD with and
// without a budget, sync, both timings, and a cut.
var claimSpecs = []string{`objectives: [quadratic]
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
`, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
total_microbatches: [12]
cost: {cost_model: gpu}
methods:
  - {name: pipedream, step_sizes: {values: [0.01]}}
  - {name: rpd, deltas: [4], step_sizes: {values: [0.01]}}
`, `objectives: [tridiagonal]
n: 64
d: 16
batch_size: 4
stages: [4]
total_microbatches: [40]
cut: shortest
methods:
  - {name: pipedream, step_sizes: {values: [0.05]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
`}

// runTimelines lists exactly the timelines a run asks the cache for: run
// alone on an empty cache, a run leaves behind the keys runTimelines
// names, no more and no fewer.
func TestRunTimelinesAreWhatARunAsksFor(t *testing.T) {
	defer resetTimelines()
	for _, src := range claimSpecs {
		for _, r := range mustSpec(t, src).Expand() {
			resetTimelines()
			if _, err := Execute(context.Background(), r); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			got, want := keySet(cachedKeys()), keySet(runTimelines(r))
			if !maps.Equal(got, want) {
				t.Errorf("%s: asked for %v, runTimelines says %v", r.Name, got, want)
			}
		}
	}
}

// A sweep drops each timeline when the last run that needs it is done,
// and the cache ends empty; what a sweep writes does not change with it.
func TestSweepForgetsTimelinesWhenDone(t *testing.T) {
	defer resetTimelines()
	resetTimelines()
	runs := mustSpec(t, claimSpecs[0]).Expand()
	for _, jobs := range []int{1, 3} {
		dir := t.TempDir()
		var peak int
		rn := Runner{Dir: dir, Jobs: jobs, Execute: func(ctx context.Context, r Run) (*results.Tables, error) {
			out, err := Execute(ctx, r)
			timelines.Lock()
			peak = max(peak, len(timelines.m))
			timelines.Unlock()
			return out, err
		}}
		if _, err := rn.Sweep(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
		if left := cachedKeys(); len(left) != 0 {
			t.Errorf("jobs %d: %d timelines left cached after the sweep: %v", jobs, len(left), left)
		}
		timelines.Lock()
		claims := len(timelines.claims)
		timelines.Unlock()
		if claims != 0 || peak == 0 {
			t.Errorf("jobs %d: %d claims left, at most %d timelines cached", jobs, claims, peak)
		}
	}
}
