//go:build !unix

package cputime

import "time"

// Process is not available here: it returns false, and benchmarks report
// the wall clock only.
func Process() (time.Duration, bool) { return 0, false }
