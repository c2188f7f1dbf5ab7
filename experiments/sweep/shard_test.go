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
		// Issue 39: each of these ran the whole sweep.
		{"slurm index empty", map[string]string{"SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{}, "SLURM_ARRAY_TASK_ID"},
		{"slurm count alone", map[string]string{"SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{}, "SLURM_ARRAY_TASK_ID"},
		{"PIPELAB_SHARDS alone", map[string]string{"PIPELAB_SHARDS": "4"}, 0, Shard{}, "JOB_COMPLETION_INDEX"},
		{"k8s index empty", map[string]string{"JOB_COMPLETION_INDEX": "", "PIPELAB_SHARDS": "4"}, 0, Shard{}, "JOB_COMPLETION_INDEX"},
		// AWS Batch, Google Cloud Batch and Cloud Run jobs: index from 0
		// and the count, each in its own pair of variables.
		{"aws batch", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "4", "AWS_BATCH_JOB_ARRAY_SIZE": "5"}, 0, Shard{4, 5}, ""},
		{"aws batch size alone", map[string]string{"AWS_BATCH_JOB_ARRAY_SIZE": "5"}, 0, Shard{}, "AWS_BATCH_JOB_ARRAY_INDEX"},
		{"aws batch index empty", map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "", "AWS_BATCH_JOB_ARRAY_SIZE": "5"}, 0, Shard{}, "AWS_BATCH_JOB_ARRAY_INDEX"},
		{"google batch", map[string]string{"BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2"}, 0, Shard{0, 2}, ""},
		{"google batch index alone", map[string]string{"BATCH_TASK_INDEX": "0"}, 0, Shard{}, "BATCH_TASK_COUNT"},
		{"cloud run", map[string]string{"CLOUD_RUN_TASK_INDEX": "2", "CLOUD_RUN_TASK_COUNT": "3"}, 0, Shard{2, 3}, ""},
		{"cloud run out of range", map[string]string{"CLOUD_RUN_TASK_INDEX": "3", "CLOUD_RUN_TASK_COUNT": "3"}, 0, Shard{}, "CLOUD_RUN_TASK_INDEX"},
		{"cloud run not a number", map[string]string{"CLOUD_RUN_TASK_INDEX": "x", "CLOUD_RUN_TASK_COUNT": "3"}, 0, Shard{}, "CLOUD_RUN_TASK_INDEX"},
		{"two systems", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2", "CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "2"}, 0, Shard{}, "both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShardFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }, tc.count)
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

// FuzzParseShard: ParseShard never panics and accepts only 0 <= I < N.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "1/2", "2/2", "a/b", "", "/", "-1/3", " 1 / 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err == nil && (sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count) {
			t.Fatalf("ParseShard(%q) = %+v", s, sh)
		}
	})
}
