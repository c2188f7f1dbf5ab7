//go:build !unix

package optim

import "time"

// processCPU is not available here: benchmarks report wall-clock time only.
func processCPU() (time.Duration, bool) { return 0, false }
