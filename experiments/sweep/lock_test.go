package sweep

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startChildSweep starts the test binary as a slow sweep into dir (see
// TestMain) and returns once it holds dir's lock and has recorded at least
// records runs.
func startChildSweep(t *testing.T, dir string, records int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for countRecords(t, dir) < records {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child recorded no runs in 30 s: %s", stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	return cmd
}

// TestSecondSweepIntoAFolderIsRefused runs a sweep in a child process and,
// while it holds the folder, starts a second one here: it is refused,
// naming the holder's pid. Once the child is killed (SIGKILL, so its lock
// stays behind), the stale lock is taken over.
func TestSecondSweepIntoAFolderIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "busy")
	cmd := startChildSweep(t, dir, 1)
	_, err := (&Runner{Dir: dir, Jobs: 1, Execute: fakeRun}).Sweep(context.Background(), tinyRuns(t))
	want := "in use by pid " + strconv.Itoa(cmd.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("second sweep: %v, want an error with %q", err, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Fatalf("the killed child left no lock to take over: %v", err)
	}
	if _, err := (&Runner{Dir: dir, Jobs: 1, Execute: fakeRun}).Sweep(context.Background(), tinyRuns(t)); err != nil {
		t.Errorf("sweep after the holder died: %v, want the stale lock taken over", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
		t.Error("the finished sweep left its lock")
	}
}

// TestLockOfAnotherHostIsKept: a lock naming another host is never taken
// over, whatever its pid.
func TestLockOfAnotherHostIsKept(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LockFile), []byte("pid 999999999 host elsewhere.invalid\n"), 0o644)
	_, err := lockFolder(dir)
	if err == nil || !strings.Contains(err.Error(), "on host elsewhere.invalid") {
		t.Errorf("lockFolder = %v, want a refusal naming the other host", err)
	}
}

// TestResumeRemovesStaleTemporaryTables: what a killed sweep leaves beside
// runs/ (a temporary table file, an uncommitted staging folder) is gone
// after the next sweep of the folder, as are those inside runs/.
func TestResumeRemovesStaleTemporaryTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	runs := tinyRuns(t)[:2]
	sweep(t, dir, 1, runs)
	stale := []string{
		filepath.Join(dir, ".runs.parquet.tmp-123"),
		filepath.Join(dir, ".tables.tmp-456", "runs.parquet"),
		filepath.Join(dir, "runs", "."+runs[0].ID+".tmp-789"),
	}
	for _, p := range stale {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sweep(t, dir, 1, runs)
	for _, p := range append(stale, filepath.Join(dir, ".tables.tmp-456")) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived the resumed sweep", p)
		}
	}
}
