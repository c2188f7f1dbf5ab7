//go:build unix

package optim

import (
	"syscall"
	"time"
)

// processCPU returns the user plus system CPU time of this process, so
// that benchmarks on a shared machine can compare CPU times, which the
// other jobs on the machine do not lengthen as they do the wall clock.
func processCPU() (time.Duration, bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
