package sweep

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

func TestShardSelect(t *testing.T) {
	s, err := experiments.ReadSpecFile(tinySpec)
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
