//go:build unix && !aix

package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipelab/pipelab/experiments"
)

// TestLockIsARegularFileNotFollowed: a symlink planted at OUT/pipelab.lock
// is refused, not followed (issue 39: the sweep overwrote its target with
// its pid line), and so is a FIFO, which hung the sweep in the read of the
// holder's line; a directory at the path is refused too.
func TestLockIsARegularFileNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, LockFile)
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	l, err := lockFolder(dir)
	if err == nil {
		l.unlock()
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symlink at the lock: %v, want a refusal naming %s as a symbolic link", err, lock)
	}

	for _, tc := range []struct {
		kind string
		make func(string) error
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		dir := t.TempDir()
		lock := filepath.Join(dir, LockFile)
		if err := tc.make(lock); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			l, err := lockFolder(dir)
			if err == nil {
				l.unlock()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("a %s at the lock: %v, want a refusal naming %s as not a regular file", tc.kind, err, lock)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("a %s at the lock: lockFolder still waiting after 10 s", tc.kind)
		}
	}
}

// TestOutThatIsAFileIsBadInput: a sweep or merge whose output folder is a
// file is refused as bad input, naming it (issue 39: "mkdir FILE: not a
// directory", exit status 1).
func TestOutThatIsAFileIsBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := lockFolder(file)
	if !errors.Is(err, experiments.ErrBadInput) || !strings.Contains(err.Error(), file+" is a file") {
		t.Errorf("lockFolder(a file) = %v, want bad input naming %s as a file", err, file)
	}
}
