package results

import (
	"os"
	"path/filepath"
	"testing"
)

// pairTables is a data set whose runs and curves name the same run, so a
// mismatched pair shows as a curve whose run id is not in the runs table.
func pairTables(id string) *Tables {
	return &Tables{
		Runs:   []Run{{RunID: id, Experiment: "pair", Objective: "quadratic", Method: "sync", Stages: 2}},
		Curves: []CurvePoint{{RunID: id, Time: 1, Loss: 0.5}},
	}
}

// readPair reads dir back and returns the run ids of its runs and curves.
func readPair(t *testing.T, dir string) (runs, curves string) {
	t.Helper()
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 1 || len(got.Curves) != 1 {
		t.Fatalf("read %d runs and %d curve points, want 1 and 1", len(got.Runs), len(got.Curves))
	}
	return got.Runs[0].RunID, got.Curves[0].RunID
}

// TestWriteDirReplacesRunsAndCurvesAsAPair stops a WriteDir that replaces
// an old pair after 1 of its 2 renames, as a kill there would: the folder
// then holds the new runs.parquet beside the old curves.parquet, and the
// committed staging folder. ReadDir must read the new pair, and Recover
// must finish the write and leave nothing temporary behind.
func TestWriteDirReplacesRunsAndCurvesAsAPair(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDir(dir, pairTables("old")); err != nil {
		t.Fatal(err)
	}
	interruptAt = func(renamed int) bool { return renamed == 1 }
	err := WriteDir(dir, pairTables("new"))
	interruptAt = nil
	if err != errInterrupted {
		t.Fatalf("WriteDir = %v, want the test's interruption", err)
	}
	// The kill point is real: one table of each write is in dir now.
	old, _ := ReadRuns(filepath.Join(dir, RunsFile))
	oldCurves, _ := ReadCurves(filepath.Join(dir, CurvesFile))
	if len(old) != 1 || len(oldCurves) != 1 || old[0].RunID == oldCurves[0].RunID {
		t.Fatalf("dir's own files name runs %v and curves %v; want one of each write", old, oldCurves)
	}
	if runs, curves := readPair(t, dir); runs != "new" || curves != "new" {
		t.Errorf("after the kill ReadDir gives runs of %q and curves of %q, want both new", runs, curves)
	}
	if err := Recover(dir); err != nil {
		t.Fatal(err)
	}
	if runs, curves := readPair(t, dir); runs != "new" || curves != "new" {
		t.Errorf("after Recover: runs of %q and curves of %q, want both new", runs, curves)
	}
	assertOnly(t, dir, CurvesFile, RunsFile)
}

// TestRecoverDropsAnUncommittedWrite leaves what a kill before the commit
// mark leaves (a staging folder with new tables, a temporary file of a
// table being written): the old pair stays and the leftovers go.
func TestRecoverDropsAnUncommittedWrite(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDir(dir, pairTables("old")); err != nil {
		t.Fatal(err)
	}
	stage, err := stageTables(dir, pairTables("new"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(stage)
	if err := os.WriteFile(filepath.Join(dir, ".runs.parquet.tmp-42"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, curves := readPair(t, dir); runs != "old" || curves != "old" {
		t.Errorf("before the mark ReadDir gives runs of %q and curves of %q, want both old", runs, curves)
	}
	if err := Recover(dir); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, CurvesFile, RunsFile)
	if runs, curves := readPair(t, dir); runs != "old" || curves != "old" {
		t.Errorf("after Recover: runs of %q and curves of %q, want both old", runs, curves)
	}
}
