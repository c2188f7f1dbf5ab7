package main

import (
	"os"
	"runtime/debug"
)

// sweepGCPercent is the collector's target for the commands that run
// many runs in one process (reproduce, sweep): the heap may grow to
// 1 + sweepGCPercent/100 times the live heap before a collection, instead
// of the default twice. Their runs allocate little against their
// arithmetic (with this setting GODEBUG=gctrace=1 puts the collector at
// 2 % of a full reproduce's CPU), so the smaller headroom costs little,
// and it keeps the process's resident memory near what the runs in
// flight hold: the full reproduce's peak was live runs plus the default
// headroom, 565 MB, against 428 MB with this one (docs/benchmarks.md,
// fourth pass).
const sweepGCPercent = 50

// lowerGCHeadroom sets sweepGCPercent unless the user chose the
// collector's settings through GOGC.
func lowerGCHeadroom() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(sweepGCPercent)
	}
}
