package experiments

import (
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

func TestShardSelect(t *testing.T) {
	s, err := ReadSpecFile("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Expand()
	seen := map[string]int{}
	for i := range 3 {
		for _, r := range (Shard{Index: i, Count: 3}).Select(runs) {
			seen[r.ID]++
		}
	}
	if len(seen) != len(runs) {
		t.Fatalf("3 shards cover %d of %d runs", len(seen), len(runs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("run %s in %d shards", id, n)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		count int
		want  Shard
		err   string
	}{
		{"none", nil, 0, Shard{}, ""},
		{"slurm", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{1, 3}, ""},
		{"slurm out of range", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{}, "SLURM_ARRAY_TASK_ID"},
		{"k8s with flag count", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 4, Shard{2, 4}, ""},
		{"k8s with env count", map[string]string{"JOB_COMPLETION_INDEX": "0", "PIPELAB_SHARDS": "2"}, 0, Shard{0, 2}, ""},
		{"k8s without count", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 0, Shard{}, "needs a shard count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShardFromEnv(func(k string) string { return tc.env[k] }, tc.count)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"1", "2/2", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("1/2"); err != nil || s != (Shard{1, 2}) {
		t.Errorf("ParseShard(1/2) = %v, %v", s, err)
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
