package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// gridLoss is the synthetic objective of the experiments package's grid
// tests (expand_grid_test.go): the expected loss, in closed form, of K =
// 100 steps of SGD with constant step γ on f(x) = ½x² from x₀ = 1, each
// gradient with noise of variance σ² = 0.01, ½(a^K + γ²σ²(1 - a^K)/(1 - a))
// with a = (1-γ)². Its best power-of-two step lies well above 2^-10, so a
// grid of 2^-12..2^-10 grows upward, round after round.
func gridLoss(step float64) float64 {
	const sigma, k = 0.1, 100
	a := (1 - step) * (1 - step)
	if a == 1 {
		return 0.5 * (1 + k*step*step*sigma*sigma)
	}
	aK := math.Pow(a, k)
	return 0.5 * (aK + step*step*sigma*sigma*(1-aK)/(1-a))
}

// gridRun is a RunFunc giving each run gridLoss of its step as its final
// and held-out loss, diverged past 10^6 times the initial loss.
func gridRun(_ context.Context, r experiments.Run) (*results.Tables, error) {
	row := experiments.RunRow(r)
	row.Outcome = results.OutcomeOK
	row.FinalLoss = gridLoss(r.Step)
	row.HeldOutLoss = row.FinalLoss
	row.SimTime = 1
	if row.FinalLoss > 1e6*0.5 {
		row.Outcome, row.FinalLoss, row.HeldOutLoss = results.OutcomeDiverged, math.Inf(1), math.NaN()
	}
	return &results.Tables{Runs: []results.Run{row}}, nil
}

// gridRuns is a one-method sweep over grid that grows by up to extend
// steps an edge.
func gridRuns(t *testing.T, grid, extend string) []experiments.Run {
	t.Helper()
	s, err := experiments.ParseSpec("syn.yaml", []byte(`experiment: syn
seed: 7
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
total_microbatches: [20]
extend_grid: `+extend+`
methods:
  - {name: pipedream, step_sizes: `+grid+`}
`))
	if err != nil {
		t.Fatal(err)
	}
	return s.Expand()
}

// sweepGrid sweeps runs with gridRun into a new folder and returns the
// runs table and the summary.
func sweepGrid(t *testing.T, runs []experiments.Run) ([]results.Run, Summary) {
	t.Helper()
	dir := t.TempDir()
	rn := Runner{Dir: dir, Jobs: 2, Execute: gridRun}
	sum, err := rn.Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadRuns(filepath.Join(dir, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows, sum
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// errKilled plays a sweep killed in its second round.
var errKilled = errors.New("killed")

// A sweep killed while it extends, then run again, writes the runs table
// an uninterrupted sweep writes (the wall-clock column aside), and a sweep
// run again over a finished folder recomputes nothing and rewrites the
// same table byte for byte.
func TestGridExtensionResumes(t *testing.T) {
	runs := gridRuns(t, "{pow2: [-12, -10]}", "10")
	whole, _ := sweepGrid(t, runs)

	dir := t.TempDir()
	calls := 0
	killing := func(ctx context.Context, r experiments.Run) (*results.Tables, error) {
		if calls++; r.Step > math.Ldexp(1, -8) {
			return nil, errKilled
		}
		return gridRun(ctx, r)
	}
	rn := Runner{Dir: dir, Jobs: 1, Execute: killing}
	if _, err := rn.Sweep(context.Background(), runs); !errors.Is(err, errKilled) {
		t.Fatalf("killed sweep: %v, want the kill", err)
	}
	rn.Execute = gridRun
	sum, err := rn.Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed == 0 || sum.Ran == 0 {
		t.Errorf("resumed sweep: %+v, want some runs resumed and some run", sum)
	}
	path := filepath.Join(dir, results.RunsFile)
	got, err := results.ReadRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	// %+v writes NaN as NaN, so equal strings are equal rows.
	noWall := func(rows []results.Run) string {
		out := slices.Clone(rows)
		for i := range out {
			out[i].WallSeconds = 0
		}
		return fmt.Sprintf("%+v", out)
	}
	if noWall(got) != noWall(whole) {
		t.Errorf("resumed table (%d rows) differs from the uninterrupted one (%d rows)", len(got), len(whole))
	}
	before := readFile(t, path)
	again, err := rn.Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	if again.Ran != 0 || again.Runs != len(got) {
		t.Errorf("sweep of a finished folder: %+v, want nothing run and %d runs", again, len(got))
	}
	if after := readFile(t, path); string(after) != string(before) {
		t.Error("runs table rewritten differently by a sweep of a finished folder")
	}
}

// A shard refuses to extend grids, naming the spec key, before it writes
// anything into its folder.
func TestGridExtensionRefusedForShards(t *testing.T) {
	runs := gridRuns(t, "{pow2: [-12, -10]}", "3")
	ds := NewDataset("syn", runs, Shard{Index: 0, Count: 2})
	dir := filepath.Join(t.TempDir(), "shard")
	rn := Runner{Dir: dir, Jobs: 1, Execute: gridRun, Dataset: &ds}
	_, err := rn.Sweep(context.Background(), Shard{Index: 0, Count: 2}.Select(runs))
	if err == nil || !strings.Contains(err.Error(), "extend_grid") || !strings.Contains(err.Error(), "0/2") {
		t.Errorf("sharded sweep with extend_grid: %v, want a refusal naming extend_grid and the shard", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused shard's folder exists (%v)", err)
	}
	zero := gridRuns(t, "{pow2: [-12, -10]}", "0")
	ds = NewDataset("syn", zero, Shard{Index: 0, Count: 2})
	if _, err := rn.Sweep(context.Background(), Shard{Index: 0, Count: 2}.Select(zero)); err != nil {
		t.Errorf("sharded sweep without extension: %v", err)
	}
}
