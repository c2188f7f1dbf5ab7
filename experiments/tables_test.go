package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"pipelab/results"
)

// tablesSpecs are small specs that together write every table an
// experiment writes: runs and curves of three methods (RPD at δ = 0 among
// them) over two replicates, delays, and schedules with their timeline
// under the unit and the GPU cost model.
var tablesSpecs = []string{`name: conv
seed: 3
seeds: 2
objectives: [quadratic]
n: 40
d: 8
batch: 4
stages: [2]
microbatches: [20]
methods:
  - {name: pipedream, steps: {values: [0.05, 0.1]}}
  - {name: rpd, deltas: [0, 3], steps: {values: [0.05, 0.1]}}
  - {name: localsgd, local_steps: [2], steps: {values: [0.05]}}
`, `name: dl
experiment: delays
stages: [2, 4]
`, `name: sched
experiment: schedules
families: [gpipe, 1f1b, zb-h1]
stages: [4]
microbatches: [8]
`, `name: sched-gpu
experiment: schedules
families: [gpipe, 1f1b]
stages: [4]
microbatches: [8]
cost: {model: gpu, preset: gpt-1.3b, gpu: a100, link: nvlink, microbatch: 1, sequence: 2048}
`}

// tablesDir runs tablesSpecs as a sweep does (stamp, then writeDataset)
// and returns the results directory.
func tablesDir(t *testing.T) string {
	t.Helper()
	d := &results.Tables{}
	for _, src := range tablesSpecs {
		for _, r := range mustSpec(t, src).Expand() {
			out, err := Execute(context.Background(), r)
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			stamp(out, r, 0)
			appendTables(d, out)
		}
	}
	dir := t.TempDir()
	if err := writeDataset(dir, d); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readPQ reads a table of dir with parquet-go, the independent reader,
// into the columns R names.
func readPQ[R any](t *testing.T, dir, file string) []R {
	t.Helper()
	rows, err := parquet.ReadFile[R](filepath.Join(dir, file))
	if err != nil {
		t.Fatalf("parquet-go: %s: %v", file, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", file)
	}
	return rows
}

// unique fails if two rows have the same key.
func unique[R any](t *testing.T, file string, rows []R, key func(R) string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rows {
		k := key(r)
		if seen[k] {
			t.Errorf("%s: key %s is not unique", file, k)
		}
		seen[k] = true
	}
}

// The key docs/results.md documents for each table is unique in the rows
// a sweep writes, as an independent Parquet reader sees them, and every
// row carries its run id and experiment.
func TestTableKeysUnique(t *testing.T) {
	dir := tablesDir(t)
	type ids struct {
		RunID      string `parquet:"run_id"`
		Experiment string `parquet:"experiment"`
	}
	hasIDs := func(file string, rows []ids) {
		for _, r := range rows {
			if r.RunID == "" || r.Experiment == "" {
				t.Fatalf("%s: a row without run_id or experiment: %+v", file, r)
			}
		}
	}
	t.Run("runs", func(t *testing.T) {
		rows := readPQ[struct {
			RunID string `parquet:"run_id"`
		}](t, dir, results.RunsFile)
		unique(t, results.RunsFile, rows, func(r struct {
			RunID string `parquet:"run_id"`
		}) string {
			return r.RunID
		})
		if len(rows) != 2*(2+4+1) {
			t.Errorf("%d runs, want 14 (2 replicates × (2 pipedream + 4 rpd + 1 localsgd))", len(rows))
		}
		hasIDs(results.RunsFile, readPQ[ids](t, dir, results.RunsFile))
	})
	t.Run("curves", func(t *testing.T) {
		type key struct {
			RunID        string `parquet:"run_id"`
			BlockUpdates int64  `parquet:"block_updates"`
		}
		unique(t, results.CurvesFile, readPQ[key](t, dir, results.CurvesFile), func(k key) string { return fmt.Sprint(k) })
		hasIDs(results.CurvesFile, readPQ[ids](t, dir, results.CurvesFile))
	})
	t.Run("delays", func(t *testing.T) {
		type key struct {
			RunID       string `parquet:"run_id"`
			DelayWindow string `parquet:"delay_window"`
		}
		rows := readPQ[key](t, dir, results.DelaysFile)
		unique(t, results.DelaysFile, rows, func(k key) string { return fmt.Sprint(k) })
		if len(rows) != 4 {
			t.Errorf("%d delay rows, want 4 (2 stage counts × 2 windows)", len(rows))
		}
		hasIDs(results.DelaysFile, readPQ[ids](t, dir, results.DelaysFile))
	})
	t.Run("timeline", func(t *testing.T) {
		type key struct {
			ScheduleID  string `parquet:"schedule_id"`
			Rank        int32  `parquet:"rank"`
			ActionIndex int32  `parquet:"action_index"`
			Kind        string `parquet:"kind"`
		}
		rows := readPQ[key](t, dir, results.TimelineFile)
		unique(t, results.TimelineFile, rows, func(k key) string { return fmt.Sprint(k.ScheduleID, k.Rank, k.ActionIndex) })
		sends := 0
		for _, r := range rows {
			if r.Kind == "SEND_F" || r.Kind == "SEND_B" {
				sends++
			}
		}
		// The GPU-timed schedules send activations and gradients between
		// ranks: the rows the simulator's own index (-1) left without a key.
		if sends == 0 {
			t.Error("no SEND rows: the test does not cover the transfers")
		}
		hasIDs(results.TimelineFile, readPQ[ids](t, dir, results.TimelineFile))
	})
	t.Run("schedules", func(t *testing.T) {
		type key struct {
			ScheduleID string `parquet:"schedule_id"`
		}
		unique(t, results.SchedulesFile, readPQ[key](t, dir, results.SchedulesFile), func(k key) string { return k.ScheduleID })
		hasIDs(results.SchedulesFile, readPQ[ids](t, dir, results.SchedulesFile))
	})
}
