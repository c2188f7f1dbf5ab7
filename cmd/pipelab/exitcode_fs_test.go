package main

import (
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyAndDeniedExitAlike: a file or folder that cannot be written
// because the file system is read-only is the same kind of problem as one
// whose permissions refuse it, bad input, exit status 2 (issue 39: EACCES
// exited 2 where EROFS exited 1).
func TestReadOnlyAndDeniedExitAlike(t *testing.T) {
	for _, op := range []string{"open", "mkdir"} {
		for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EROFS} {
			err := &fs.PathError{Op: op, Path: "out/x", Err: errno}
			if !isBadInput(err) {
				t.Errorf("%s: %v is not bad input", op, errno)
			}
		}
	}
}

// TestBadPartitionAndOutAreBadInput: a --partition of the wrong length and
// a sweep whose --out is a file exit with status 2, naming what is wrong
// (issue 39: both exited 1).
func TestBadPartitionAndOutAreBadInput(t *testing.T) {
	code, _, stderr := runCode("simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--partition", "1,2,3")
	if code != 2 || !strings.Contains(stderr, "--partition") {
		t.Errorf("a 3-entry --partition on 2 stages: exit %d, %q; want 2 naming --partition", code, stderr)
	}
	file := writeFile(t, "notes.txt", "keep\n")
	code, _, stderr = runCode("sweep", writeSpec(t, tinySpec), "--out", file)
	if code != 2 || !strings.Contains(stderr, file+" is a file") {
		t.Errorf("sweep --out FILE: exit %d, %q; want 2 naming the file", code, stderr)
	}
}

// TestScheduleWarnsWhenPyTorchRefusesTheCSV: Chimera's CSV is written with
// a warning that PyTorch's loader refuses it; 1F1B's without one (issue 39:
// no word).
func TestScheduleWarnsWhenPyTorchRefusesTheCSV(t *testing.T) {
	code, _, stderr := runCode("schedule", "--kind", "chimera", "--ranks", "4", "--microbatches", "8", "--format", "csv")
	if code != 0 || !strings.Contains(stderr, "warning: PyTorch's schedule validation") || !strings.Contains(stderr, "forwards 4 of its 8") {
		t.Errorf("chimera: exit %d, %q; want 0 and the warning", code, stderr)
	}
	if code, _, stderr := runCode("schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--format", "csv"); code != 0 || stderr != "" {
		t.Errorf("1f1b: exit %d, %q; want 0 and no warning", code, stderr)
	}
}
