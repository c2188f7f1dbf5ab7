package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSweepBadShardIsBadInput: a bad --shard, and bad or half-set array
// variables (Slurm, Kubernetes, Cloud Run jobs; an empty one is set), are bad input: exit status 2 with the value named
// (issue 27: status 1), and nothing is written.
func TestSweepBadShardIsBadInput(t *testing.T) {
	spec := writeSpec(t, tinySpec)
	tests := []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"index past the count", "2/2", nil, `shard "2/2": need 0 <= I < N`},
		{"no slash", "1", nil, `shard "1" is not I/N`},
		{"not integers", "a/b", nil, `shard "a/b" is not I/N with integers`},
		{"zero shards", "0/0", nil, "need 0 <= I < N"},
		{"slurm id past the count", "", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3"}, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT: need 0 <= I < N"},
		{"slurm id without count", "", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"},
		{"slurm id empty", "", map[string]string{"SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_COUNT": "3"}, `SLURM_ARRAY_TASK_ID=""`},
		{"PIPELAB_SHARDS without JOB_COMPLETION_INDEX", "", map[string]string{"PIPELAB_SHARDS": "3"}, "PIPELAB_SHARDS is set but JOB_COMPLETION_INDEX is not"},
		{"cloud run index without count", "", map[string]string{"CLOUD_RUN_TASK_INDEX": "1"}, "CLOUD_RUN_TASK_INDEX is set but CLOUD_RUN_TASK_COUNT is not"},
		{"slurm id not a number", "", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "3"}, `SLURM_ARRAY_TASK_ID="x"`},
		{"job index not a number", "", map[string]string{"JOB_COMPLETION_INDEX": "x"}, `JOB_COMPLETION_INDEX="x"`},
		{"job index without count", "", map[string]string{"JOB_COMPLETION_INDEX": "0"}, "needs a shard count"},
		{"bad PIPELAB_SHARDS", "", map[string]string{"JOB_COMPLETION_INDEX": "0", "PIPELAB_SHARDS": "two"}, `PIPELAB_SHARDS="two"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "PIPELAB_SHARDS",
				"AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE", "BATCH_TASK_INDEX", "BATCH_TASK_COUNT", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"} {
				t.Setenv(k, "") // restored after the test
				if v, ok := tc.env[k]; ok {
					os.Setenv(k, v)
				} else {
					os.Unsetenv(k)
				}
			}
			args := []string{"sweep", spec, "--out", t.TempDir() + "/out"}
			if tc.flag != "" {
				args = append(args, "--shard", tc.flag)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tc.want)
			}
			if strings.Contains(stderr.String(), "experiments:") {
				t.Errorf("stderr %q names a Go package", stderr.String())
			}
		})
	}
}
