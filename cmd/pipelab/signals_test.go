package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipelab/pipelab/experiments/sweep"
	"github.com/pipelab/pipelab/internal/atomicfile"
)

// waitFor polls until ok holds, failing the test after 60 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tempFiles lists the temporary files (atomicfile.IsTemp) under dir.
func tempFiles(dir string) []string {
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && atomicfile.IsTemp(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// terminate sends sig to the running cmd and returns its exit status, the
// time it took to exit and its stderr.
func terminate(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(sent)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("after %v: %v, want an exit status; stderr %s", sig, err, stderr)
	}
	return exit.ExitCode(), took
}

// stopAfterSignal bounds the time from a signal to the exit. Both cases
// stop within about 0.15 s (measured at load average 6), while the
// interrupted work would take tens of seconds (the trace write) or minutes (the sweep's four runs): a
// handler that finished the work would miss this bound by far, and a busy
// machine that delays the exit by a few seconds does not.
const stopAfterSignal = 5 * time.Second

// TestSignals builds the binary once and signals it in two jobs.
func TestSignals(t *testing.T) {
	bin := buildPipelab(t)
	t.Run("write", func(t *testing.T) { signalDuringWrite(t, bin) })
	t.Run("sweep", func(t *testing.T) { signalDuringSweep(t, bin) })
}

// signalDuringWrite starts a simulation whose Chrome
// trace takes tens of seconds to write, sends SIGTERM once the trace's
// temporary file exists (mid-write), and checks the documented outcome:
// exit status 143, one line saying how to go on, and neither the trace nor
// its temporary file left. That the trace is absent is what shows the write
// was abandoned rather than finished; the time bound only catches a
// handler that waits for the write, and is wide (stopAfterSignal) so that
// a loaded machine does not fail it.
func signalDuringWrite(t *testing.T, bin string) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	cmd := exec.Command(bin, "simulate", "--kind", "1f1b", "--ranks", "16", "--microbatches", "20000", "--trace", trace)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the trace's temporary file", func() bool { return len(tempFiles(dir)) > 0 })
	code, took := terminate(t, cmd, &stderr, syscall.SIGTERM)
	t.Logf("exit %d %v after SIGTERM", code, took)
	if code != 143 || took > stopAfterSignal {
		t.Errorf("exit %d after %v, want 143 within %v", code, took, stopAfterSignal)
	}
	if want := "pipelab: stopped by SIGTERM; " + defaultResumeHint + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if _, err := os.Stat(trace); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists after SIGTERM (%v)", trace, err)
	}
	if left := tempFiles(dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// signalDuringSweep interrupts a sweep of slow runs with SIGINT: exit
// status 130 within stopAfterSignal, the resume line, and the folder's lock, every
// temporary file and any gathered table absent.
func signalDuringSweep(t *testing.T, bin string) {
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "slow.yaml")
	// Each run replays 20000 microbatches of an 8-stage PipeDream on a
	// 512-coordinate quadratic: seconds each, so SIGINT lands mid-run.
	os.WriteFile(spec, []byte(`experiment: slow
objectives: [quadratic]
n: 2000
d: 512
batch_size: 10
stages: [8]
total_microbatches: [20000]
seeds: 4
methods:
  - name: pipedream
    step_sizes: {values: [0.01]}
`), 0o644)
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "sweep", spec, "--out", out, "--jobs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the sweep's lock", func() bool {
		_, err := os.Stat(filepath.Join(out, sweep.LockFile))
		return err == nil
	})
	time.Sleep(200 * time.Millisecond)
	code, took := terminate(t, cmd, &stderr, syscall.SIGINT)
	t.Logf("exit %d %v after SIGINT", code, took)
	if code != 130 || took > stopAfterSignal {
		t.Errorf("exit %d after %v, want 130 within %v", code, took, stopAfterSignal)
	}
	if !strings.Contains(stderr.String(), "pipelab: stopped by SIGINT; run the same command again to resume") {
		t.Errorf("stderr %q lacks the resume line", stderr.String())
	}
	for _, name := range []string{sweep.LockFile, "runs.parquet"} {
		if _, err := os.Stat(filepath.Join(out, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after SIGINT (%v)", name, err)
		}
	}
	if left := tempFiles(out); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
