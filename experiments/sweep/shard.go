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

// arraySystem is a batch system whose array tasks find their place in two
// environment variables: the task's index, from 0, and the task count.
type arraySystem struct {
	name, index, count string
}

// arraySystems are the batch systems ShardFromEnv reads. Kubernetes'
// indexed Job sets only the index (JOB_COMPLETION_INDEX); its count is
// PIPELAB_SHARDS or --shards.
var arraySystems = []arraySystem{
	{"Slurm", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"},
	{"Kubernetes", "JOB_COMPLETION_INDEX", "PIPELAB_SHARDS"},
	{"AWS Batch", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE"},
	{"Google Cloud Batch", "BATCH_TASK_INDEX", "BATCH_TASK_COUNT"},
	{"Cloud Run jobs", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"},
}

// ShardFromEnv derives the shard from a batch system's environment, read
// with lookup (os.LookupEnv): a Slurm array job numbered from 0
// (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT; deploy/slurm/sweep.sbatch
// submits one), a Kubernetes indexed Job (JOB_COMPLETION_INDEX, with the
// count from PIPELAB_SHARDS, else count, the --shards flag), an AWS Batch
// array job (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE), Google
// Cloud Batch (BATCH_TASK_INDEX, BATCH_TASK_COUNT) or a Cloud Run job
// (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT). It returns the zero Shard,
// the whole sweep, only when none of these variables is set: a variable
// set but empty, an index without its count or a count without its index,
// and the variables of two systems at once are errors, as running the
// whole sweep in every task would be.
func ShardFromEnv(lookup func(string) (string, bool), count int) (Shard, error) {
	var found []arraySystem
	for _, sys := range arraySystems {
		_, hasIndex := lookup(sys.index)
		_, hasCount := lookup(sys.count)
		if hasIndex || hasCount {
			found = append(found, sys)
		}
	}
	switch len(found) {
	case 0:
		return Shard{}, nil
	case 1:
	default:
		return Shard{}, badInputf("the variables of both %s (%s) and %s (%s) are set: give --shard I/N to say which shard this is",
			found[0].name, found[0].index, found[1].name, found[1].index)
	}
	sys := found[0]
	id, hasIndex := lookup(sys.index)
	if !hasIndex {
		return Shard{}, badInputf("%s is set but %s is not: a %s task needs both", sys.count, sys.index, sys.name)
	}
	idx, err := strconv.Atoi(id)
	if err != nil {
		return Shard{}, badInputf("%s=%q is not an integer", sys.index, id)
	}
	n, hasCount := lookup(sys.count)
	switch {
	case hasCount:
		c, err := strconv.Atoi(n)
		if err != nil {
			return Shard{}, badInputf("%s=%q is not an integer", sys.count, n)
		}
		count = c
	case sys.name != "Kubernetes":
		return Shard{}, badInputf("%s is set but %s is not: a %s task needs both", sys.index, sys.count, sys.name)
	case count == 0:
		return Shard{}, badInputf("%s=%s needs a shard count (--shards or %s)", sys.index, id, sys.count)
	}
	return newShard(idx, count, sys.index+"/"+sys.count)
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
