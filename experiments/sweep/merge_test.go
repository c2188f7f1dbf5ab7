package sweep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// shardDirs sweeps the runs all as count shards of spec into tmp/NAME-I.
func shardDirs(t *testing.T, tmp, name string, all []experiments.Run, count int) []string {
	t.Helper()
	var dirs []string
	for i := range count {
		dir := filepath.Join(tmp, name+"-"+string(rune('0'+i)))
		sweepShard(t, dir, name, all, Shard{Index: i, Count: count})
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestMergeChecksShards covers the cases: a missing shard, a shard
// given twice, inputs of two specs and an unfinished shard are errors
// naming the problem, and warnings with AllowPartial.
func TestMergeChecksShards(t *testing.T) {
	all := tinyRuns(t)
	tmp := t.TempDir()
	dirs := shardDirs(t, tmp, "tiny", all, 3)
	// Another spec: the same file with another seed expands to other runs.
	s, err := experiments.ReadSpecFile(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	s.Seed++
	other := shardDirs(t, tmp, "tiny2", s.Expand(), 1)
	// An unfinished shard: a copy of shard 2/3 without one record.
	unfinished := filepath.Join(tmp, "unfinished")
	sweepShard(t, unfinished, "tiny", all, Shard{Index: 2, Count: 3})
	recs, _ := os.ReadDir(filepath.Join(unfinished, "runs"))
	os.Remove(filepath.Join(unfinished, "runs", recs[0].Name()))

	for _, tc := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"missing shard", dirs[:2], "missing shards: 2/3"},
		{"shard given twice", []string{dirs[0], dirs[1], dirs[2], shardDirs(t, filepath.Join(tmp, "again"), "tiny", all, 3)[1]}, "shard 1/3 is given twice"},
		{"runs given twice", []string{dirs[0], dirs[1], dirs[2], shardDirs(t, filepath.Join(tmp, "whole"), "tiny", all, 1)[0]}, "duplicates"},
		{"two specs", []string{dirs[0], other[0]}, "the inputs come from different specs"},
		{"unfinished shard", []string{dirs[0], dirs[1], unfinished}, "holds " + strconv.Itoa(len(Shard{Index: 2, Count: 3}.Select(all))-1) + " of the"},
	} {
		out := filepath.Join(tmp, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
		_, err := Merge(tc.inputs, out, MergeOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge = %v, want an error with %q", tc.name, err, tc.want)
		}
		if _, statErr := os.Stat(filepath.Join(out, "runs.parquet")); statErr == nil {
			t.Errorf("%s: a refused merge wrote tables", tc.name)
		}
		if tc.name == "two specs" {
			continue // never allowed
		}
		sum, err := Merge(tc.inputs, out, MergeOptions{AllowPartial: true})
		if err != nil || len(sum.Warnings) == 0 || !strings.Contains(strings.Join(sum.Warnings, "\n"), tc.want) {
			t.Errorf("%s: with AllowPartial: warnings %q, %v; want a warning with %q", tc.name, sum.Warnings, err, tc.want)
		}
	}
	// The three shards merge cleanly, into a folder that then holds the
	// whole sweep.
	out := filepath.Join(tmp, "merged")
	sum, err := Merge(dirs, out, MergeOptions{})
	if err != nil || sum.Runs != len(all) || len(sum.Warnings) > 0 {
		t.Fatalf("merge of 3 shards: %d runs, %q, %v", sum.Runs, sum.Warnings, err)
	}
	if ds, ok, _ := readDataset(out); !ok || !ds.same(NewDataset("tiny", all, Shard{})) {
		t.Errorf("merged dataset.json = %+v, want the whole sweep %+v", ds, NewDataset("tiny", all, Shard{}))
	}
	// The same merge again into the same folder is fine.
	if _, err := Merge(dirs, out, MergeOptions{}); err != nil {
		t.Errorf("merging again into the merged folder: %v", err)
	}
}

// TestMergeRefusesAnotherDataset: merging into a folder that holds another
// spec's data set, or unknown results, needs Force, which replaces it.
func TestMergeRefusesAnotherDataset(t *testing.T) {
	all := tinyRuns(t)
	tmp := t.TempDir()
	dirs := shardDirs(t, tmp, "tiny", all, 2)
	s, _ := experiments.ReadSpecFile(tinySpec)
	s.Seed++
	occupied := shardDirs(t, tmp, "tiny2", s.Expand(), 1)[0]
	bare := filepath.Join(tmp, "bare")
	sweep(t, bare, 1, all[:2])
	for _, out := range []string{occupied, bare} {
		_, err := Merge(dirs, out, MergeOptions{})
		if err == nil || !strings.Contains(err.Error(), "--force") {
			t.Errorf("merge into %s: %v, want a refusal that names --force", out, err)
		}
		sum, err := Merge(dirs, out, MergeOptions{Force: true})
		if err != nil || sum.Runs != len(all) {
			t.Fatalf("merge --force into %s: %d runs, %v", out, sum.Runs, err)
		}
		if n := countRecords(t, out); n != len(all) {
			t.Errorf("%s holds %d records after --force, want the merged %d alone", out, n, len(all))
		}
	}
}

// TestMergeRefusesItsInputAsOutput: merging into one of the inputs is
// refused, with or without Force (which would clear it), and so is an
// input that is not a sweep's output.
func TestMergeRefusesItsInputAsOutput(t *testing.T) {
	all := tinyRuns(t)
	dirs := shardDirs(t, t.TempDir(), "tiny", all, 2)
	for _, opt := range []MergeOptions{{}, {Force: true}} {
		_, err := Merge(dirs, dirs[1], opt)
		if err == nil || !strings.Contains(err.Error(), "is also an input") {
			t.Errorf("merge into an input with %+v: %v", opt, err)
		}
	}
	if n := countRecords(t, dirs[1]); n != len(Shard{Index: 1, Count: 2}.Select(all)) {
		t.Errorf("the input holds %d records after the refusals", n)
	}
	_, err := Merge([]string{dirs[0], t.TempDir()}, filepath.Join(t.TempDir(), "out"), MergeOptions{AllowPartial: true})
	if err == nil || !strings.Contains(err.Error(), "not a sweep's output") {
		t.Errorf("merge of an empty folder: %v", err)
	}
}
