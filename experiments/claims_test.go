package experiments

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestClaimsComputedFromRuns: a figure's claims table is the rule applied
// to its runs, not typed. A small sweep of five seeds is plotted; the
// claims file must equal results.Claims of the runs file, and its
// pipedream − sync training-loss row must equal the paired differences
// recomputed here from the runs table by hand (pairing by replicate,
// mean over the five).
func TestClaimsComputedFromRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps 15 small logistic runs")
	}
	s := mustSpec(t, `experiment: claims
seed: 2
seeds: 5
objectives: [logistic]
n: 60
d: 16
batch_size: 4
stages: [4]
total_microbatches: [96]
methods:
  - {name: pipedream, kind: 1f1b, step_sizes: {values: [0.05]}}
  - {name: dc, kind: 1f1b, step_sizes: {values: [0.05]}}
  - {name: sync, kind: 1f1b, step_sizes: {values: [0.2]}}
`)
	dir, _ := sweepAndPlot(t, s)
	tb, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := results.ReadClaims(filepath.Join(dir, results.ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := results.Claims(tb.Runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != len(want) || len(claims) == 0 {
		t.Fatalf("%d claims in the file, %d from the runs", len(claims), len(want))
	}
	for i := range claims {
		if claims[i].Method != want[i].Method || claims[i].Metric != want[i].Metric || claims[i].Mean != want[i].Mean {
			t.Errorf("claim %d: file %+v, runs %+v", i, claims[i], want[i])
		}
	}
	loss := map[string]map[int32]float64{}
	for _, r := range tb.Runs {
		if loss[r.Method] == nil {
			loss[r.Method] = map[int32]float64{}
		}
		loss[r.Method][r.Replicate] = r.FinalLoss
	}
	var sum float64
	for rep, l := range loss["pipedream"] {
		sum += l - loss["sync"][rep]
	}
	for _, c := range claims {
		if c.Method == "pipedream" && c.Metric == results.LossFinal {
			if c.Replicates != 5 || math.Abs(c.Mean-sum/5) > 1e-12 {
				t.Errorf("pipedream − sync: %v, want mean %g over 5 seeds", c.Paired(), sum/5)
			}
			return
		}
	}
	t.Error("no pipedream − sync training-loss claim")
}
