package experiments

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// planFor, cutTime and timelineFor are the methods of one cache the
// tests share (testTimelines), for the tests that look at runs' plans or
// timelines: the figures' runs share their pipe keys, which a cache of
// their own per run would time again. A test of the cache itself makes
// its own.
func planFor(r Run) (plan, error)    { return testTimelines.planFor(r) }
func cutTime(r Run) (float64, error) { return testTimelines.cutTime(r) }
func timelineFor(family string, r Run) (*pipeTimeline, error) {
	return testTimelines.timelineFor(family, r)
}

var testTimelines = new(Timelines)

// cachedKeys lists the keys c holds.
func (c *Timelines) cachedKeys() []pipeKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Collect(maps.Keys(c.m))
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
	for _, src := range claimSpecs {
		for _, r := range mustSpec(t, src).Expand() {
			c := new(Timelines)
			if _, err := c.Execute(context.Background(), r); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			got, want := keySet(c.cachedKeys()), keySet(runTimelines(r))
			if !maps.Equal(got, want) {
				t.Errorf("%s: asked for %v, runTimelines says %v", r.Name, got, want)
			}
		}
	}
}

// Runs that claim their timelines and release each when done leave the
// cache empty, whatever order they run in; until then it holds what they
// share.
func TestClaimedTimelinesAreDroppedWhenReleased(t *testing.T) {
	runs := mustSpec(t, claimSpecs[0]).Expand()
	c := new(Timelines)
	c.Claim(runs)
	peak := 0
	for i := range runs {
		r := runs[len(runs)-1-i]
		if _, err := c.Execute(context.Background(), r); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		held, _ := c.Held()
		peak = max(peak, held)
		c.Release(r)
	}
	if held, claims := c.Held(); held != 0 || claims != 0 || peak == 0 {
		t.Errorf("after every run: %d timelines, %d claims left; at most %d held", held, claims, peak)
	}
}
