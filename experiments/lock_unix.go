//go:build unix

package experiments

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid runs on this host
// (signal 0 checks without signalling; EPERM is a live process of another
// user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
