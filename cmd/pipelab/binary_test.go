package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builtPipelab is the command built once for the tests that run it as a
// process (the docs' command lines, signals): its folder, removed by
// TestMain, and its path or the build's error.
var builtPipelab struct {
	once      sync.Once
	dir, path string
	err       error
	out       []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtPipelab.dir != "" {
		os.RemoveAll(builtPipelab.dir)
	}
	os.Exit(code)
}

// buildPipelab builds the command into a temporary folder, once per test
// binary, and returns its path; the folder holds nothing else, so it can
// go first on a PATH.
func buildPipelab(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	b := &builtPipelab
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "pipelab-test-bin-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "pipelab")
		b.out, b.err = exec.Command("go", "build", "-o", b.path, ".").CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.path
}
