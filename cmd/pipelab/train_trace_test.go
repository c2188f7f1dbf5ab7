package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainShortDelayTraceIsBadInput: a delay trace with fewer rows than
// the run's K = N·S updates is refused before the run, naming the file
// (issue 27: the run failed at update 2 without naming it, exit 1); one
// with K rows runs.
func TestTrainShortDelayTraceIsBadInput(t *testing.T) {
	dir := t.TempDir()
	trace := func(rows int) string {
		// Stage k mod 2 updates at k with no delay: a valid trace of any length.
		var b strings.Builder
		for k := range rows {
			fmt.Fprintf(&b, "%d,%d,0,0\n", k%2, k/2)
		}
		path := filepath.Join(dir, fmt.Sprintf("trace-%d.csv", rows))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	args := func(path string) []string {
		return []string{"train", "--objective", "quadratic", "--method", "rpd", "--stages", "2", "--total-microbatches", "4",
			"--step-size", "0.1", "--delays", path}
	}
	short := trace(2)
	var stdout, stderr bytes.Buffer
	if code := run(args(short), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), short+": 2 delay rows, but the run has K = N·S = 8 updates") {
		t.Errorf("short trace: exit %d, stderr %q; want 2 and the file's 2 rows against K = 8", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(args(trace(8)), &stdout, &stderr); code != 0 {
		t.Errorf("a trace of K = 8 rows: exit %d, stderr %q", code, stderr.String())
	}
}
