package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/experiments"
)

// Shard is one slice of a sweep: the runs whose expansion index mod Count
// equals Index. The zero Shard (Count 0) means the whole sweep.
type Shard struct {
	Index, Count int
}

// String formats the shard as "I/N".
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard reads "I/N" with 0 <= I < N.
func ParseShard(v string) (Shard, error) {
	i, n, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, badInputf("shard %q is not I/N", v)
	}
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Shard{}, badInputf("shard %q is not I/N with integers", v)
	}
	return newShard(idx, cnt, "shard "+strconv.Quote(v))
}

func newShard(idx, cnt int, what string) (Shard, error) {
	if cnt < 1 || idx < 0 || idx >= cnt {
		return Shard{}, badInputf("%s: need 0 <= I < N, got I = %d, N = %d", what, idx, cnt)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

// ShardFromEnv derives the shard from a batch system's environment:
// SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (a Slurm array job
// numbered from 0, as deploy/slurm/sweep.sbatch submits it), or
// JOB_COMPLETION_INDEX (a Kubernetes indexed Job) with the count from
// PIPELAB_SHARDS, or count when PIPELAB_SHARDS is unset. It returns the
// zero Shard when neither system's variables are set.
func ShardFromEnv(getenv func(string) string, count int) (Shard, error) {
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		n := getenv("SLURM_ARRAY_TASK_COUNT")
		idx, err1 := strconv.Atoi(id)
		cnt, err2 := strconv.Atoi(n)
		if err1 != nil || err2 != nil {
			return Shard{}, badInputf("SLURM_ARRAY_TASK_ID=%q SLURM_ARRAY_TASK_COUNT=%q are not integers", id, n)
		}
		return newShard(idx, cnt, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT")
	}
	if id := getenv("JOB_COMPLETION_INDEX"); id != "" {
		idx, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, badInputf("JOB_COMPLETION_INDEX=%q is not an integer", id)
		}
		if n := getenv("PIPELAB_SHARDS"); n != "" {
			c, err := strconv.Atoi(n)
			if err != nil {
				return Shard{}, badInputf("PIPELAB_SHARDS=%q is not an integer", n)
			}
			count = c
		}
		if count == 0 {
			return Shard{}, badInputf("JOB_COMPLETION_INDEX=%s needs a shard count (--shards or PIPELAB_SHARDS)", id)
		}
		return newShard(idx, count, "JOB_COMPLETION_INDEX")
	}
	return Shard{}, nil
}

// Select returns the runs of this shard, in expansion order.
func (s Shard) Select(runs []experiments.Run) []experiments.Run {
	if s.Count == 0 {
		return runs
	}
	var out []experiments.Run
	for _, r := range runs {
		if r.Index%s.Count == s.Index {
			out = append(out, r)
		}
	}
	return out
}
