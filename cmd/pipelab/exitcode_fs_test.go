package main

import (
	"io/fs"
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
