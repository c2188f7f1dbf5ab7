package experiments

import (
	"context"
	"strings"
	"testing"
)

func mustSpec(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := ParseSpec("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExpandCountsAndIDs(t *testing.T) {
	s, err := ReadSpecFile("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Expand()
	// 2 stage counts × (3 PipeDream steps + 2 H × 2 LocalSGD steps) × 2
	// seeds, as the spec's comment counts.
	if len(runs) != 2*(3+2*2)*2 {
		t.Fatalf("%d runs, want 28", len(runs))
	}
	ids := map[string]bool{}
	for i, r := range runs {
		if r.Index != i || len(r.ID) != 16 || ids[r.ID] {
			t.Errorf("run %d: index %d id %q (duplicate %v)", i, r.Index, r.ID, ids[r.ID])
		}
		ids[r.ID] = true
	}
}

// TestExpandOrderFree reorders every axis of a spec: each run keeps its
// id and seeds, because they derive from its parameters, not its position.
func TestExpandOrderFree(t *testing.T) {
	a := mustSpec(t, `seed: 3
seeds: 2
objectives: [quadratic, logistic]
n: 40
d: 8
batch_size: 4
stages: [2, 4]
time_budget: [50]
methods:
  - {name: pipedream, step_sizes: {values: [0.1, 0.2]}}
  - {name: rpd, deltas: [paper, 1], step_sizes: {values: [0.1]}}
`)
	b := mustSpec(t, `seed: 3
seeds: 2
objectives: [logistic, quadratic]
n: 40
d: 8
batch_size: 4
stages: [4, 2]
time_budget: [50]
methods:
  - {name: rpd, deltas: [1, paper], step_sizes: {values: [0.1]}}
  - {name: pipedream, step_sizes: {values: [0.2, 0.1]}}
`)
	ra, rb := a.Expand(), b.Expand()
	if len(ra) != len(rb) {
		t.Fatalf("%d and %d runs", len(ra), len(rb))
	}
	byID := map[string]Run{}
	for _, r := range rb {
		byID[r.ID] = r
	}
	data := map[string]uint64{}
	for _, r := range ra {
		o, ok := byID[r.ID]
		if !ok || o.Name != r.Name || o.Seed != r.Seed || o.DataSeed != r.DataSeed {
			t.Errorf("run %s (%s) changed under reordering", r.ID, r.Name)
		}
		// Every method of one objective and replicate shares the data.
		k := r.Objective + "/" + string(rune('0'+r.Replicate))
		if d, seen := data[k]; seen && d != r.DataSeed {
			t.Errorf("%s: data seed differs between methods", r.Name)
		}
		data[k] = r.DataSeed
		// "paper" is ⌊S² - S/2⌋ (docs/reference.md §1.3).
		if r.Method == "rpd" && r.Delta != 1 && r.Delta != r.Stages*r.Stages-(r.Stages+1)/2 {
			t.Errorf("%s: delta %d", r.Name, r.Delta)
		}
	}
	// A different root seed changes every id and seed.
	c := mustSpec(t, `seed: 4
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
time_budget: [50]
methods: [{name: pipedream, step_sizes: {values: [0.1]}}]
`)
	for _, r := range c.Expand() {
		if _, ok := byID[r.ID]; ok {
			t.Errorf("run %s kept its id under another root seed", r.Name)
		}
	}
}

// TestExpandNoise: the noise axis multiplies the logistic runs, every σ
// of a replicate shares its data set, and runs at the default σ keep the
// ids they had before the axis existed (no noise key in their names).
func TestExpandNoise(t *testing.T) {
	const base = `seed: 2
objectives: [logistic]
n: 40
d: 8
batch_size: 4
stages: [2]
time_budget: [50]
methods:
  - {name: pipedream, step_sizes: {values: [0.1]}}
`
	plain := mustSpec(t, base).Expand()
	swept := mustSpec(t, base+"noise: [0, 0.5, 1]\n").Expand()
	if len(plain) != 1 || len(swept) != 3 {
		t.Fatalf("%d and %d runs, want 1 and 3", len(plain), len(swept))
	}
	for _, r := range swept {
		if r.DataSeed != plain[0].DataSeed {
			t.Errorf("σ = %g: data seed %d, want the default σ's %d", r.Noise, r.DataSeed, plain[0].DataSeed)
		}
		if hasNoise := strings.Contains(r.Name, "noise="); hasNoise != (r.Noise != 0.5) {
			t.Errorf("σ = %g: name %q", r.Noise, r.Name)
		}
	}
	if plain[0].Noise != 0.5 || swept[1].ID != plain[0].ID || swept[0].ID == plain[0].ID {
		t.Errorf("default σ %g, ids %s %s %s", plain[0].Noise, plain[0].ID, swept[0].ID, swept[1].ID)
	}
}

// TestCommonRandomNumbers: every method and step of one replicate draws
// the same data set and the same run streams (gradient noise, sampling),
// and another replicate draws others. Before, the run seed hashed the
// method's name, so dc and pipedream drew different gradient noise and
// their difference mixed the method with the draws.
func TestCommonRandomNumbers(t *testing.T) {
	s := mustSpec(t, `seed: 5
seeds: 2
objectives: [logistic]
n: 40
d: 8
batch_size: 4
stages: [4]
total_microbatches: [64]
methods:
  - {name: pipedream, step_sizes: {values: [0.1, 0.2]}}
  - {name: dc, step_sizes: {values: [0.1]}}
  - {name: sync, step_sizes: {values: [0.3]}}
  - {name: rpd, deltas: [1], step_sizes: {values: [0.1]}}
`)
	seed, data := map[int]uint64{}, map[int]uint64{}
	for _, r := range s.Expand() {
		if o, ok := seed[r.Replicate]; ok && (o != r.Seed || data[r.Replicate] != r.DataSeed) {
			t.Errorf("%s: seeds %d/%d, other methods of replicate %d have %d/%d", r.Name, r.Seed, r.DataSeed, r.Replicate, o, data[r.Replicate])
		}
		seed[r.Replicate], data[r.Replicate] = r.Seed, r.DataSeed
	}
	if len(seed) != 2 || seed[0] == seed[1] || data[0] == data[1] {
		t.Errorf("replicates' seeds %v and data seeds %v: want two distinct of each", seed, data)
	}
}

// Two methods of one seed draw the same noise: dc with λ = 0 is PipeDream
// bit for bit (optim's identity), so with the gradient noise on (logistic,
// σ = 0.5) their runs from one expansion end at the same loss only if the
// noise streams are the same; with the former seeds, which hashed the
// method's name, they differed.
func TestCommonNoiseStreams(t *testing.T) {
	s := mustSpec(t, `seed: 9
objectives: [logistic]
n: 60
d: 16
batch_size: 4
stages: [4]
total_microbatches: [64]
methods:
  - {name: pipedream, step_sizes: {values: [0.05]}}
  - {name: dc, dc_lambda: 0, step_sizes: {values: [0.05]}}
`)
	var finals []float64
	for _, r := range s.Expand() {
		res, err := Train(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		finals = append(finals, res.FinalLoss)
	}
	if len(finals) != 2 || finals[0] != finals[1] {
		t.Errorf("pipedream and dc (λ = 0) of one seed end at %v: want one loss", finals)
	}
}
