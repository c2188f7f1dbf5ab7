//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of this process, and
// false where it cannot be read.
func Process() (time.Duration, bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
