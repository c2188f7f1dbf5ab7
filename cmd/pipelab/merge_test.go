package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeReportsProblemsAsBadInput: two of three shards merge only with
// --allow-partial (a warning naming the missing shard), and are refused
// otherwise with exit status 2; the three together merge into the whole
// sweep.
func TestMergeReportsProblemsAsBadInput(t *testing.T) {
	spec := writeSpec(t, tinySpec)
	tmp := t.TempDir()
	var shards []string
	for _, i := range []string{"0", "1", "2"} {
		dir := filepath.Join(tmp, "shard-"+i)
		pipelab(t, "sweep", spec, "--out", dir, "--shard", i+"/3", "--jobs", "1")
		shards = append(shards, dir)
	}
	out := filepath.Join(tmp, "merged")
	code, stderr := runCommand(t, "merge", shards[0], shards[2], "--out", out)
	if want := "missing shards: 1/3 (--allow-partial merges all the same)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("merge of 2 of 3 shards: exit %d, %q; want exit 2 and %q", code, firstLine(stderr), want)
	}
	code, stderr = runCommand(t, "merge", shards[0], shards[2], "--out", out, "--allow-partial")
	if want := "pipelab merge: warning: the inputs hold 5 of the 8 runs"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--allow-partial: exit %d, %q; want exit 0 and %q", code, firstLine(stderr), want)
	}
	if got := pipelab(t, append(append([]string{"merge"}, shards...), "--out", out)...); !strings.Contains(got, `merged 3 directories: 8 of 8 runs of spec "tiny"`) {
		t.Errorf("merge of every shard: %q", got)
	}
}
