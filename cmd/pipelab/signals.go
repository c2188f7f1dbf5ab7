package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/pipelab/pipelab/internal/atomicfile"
)

// resumeHint is what a command stopped by a signal says after "stopped by
// SIGNAL; ": how to resume. A command that keeps work across runs (sweep)
// stores its own; the others have nothing to resume.
var resumeHint atomic.Value

// signalled is set as soon as the handler has a signal: a command that
// returns because of the same signal (one that also watches it through a
// context) must not exit before the handler has cleaned up (main waits).
var signalled atomic.Bool

// defaultResumeHint is said by the commands that keep no work.
const defaultResumeHint = "no output file was written; run the same command again"

// stopOnSignal makes SIGINT and SIGTERM stop the process at once, whatever
// it is computing: the tracked temporary files and locks are removed
// (atomicfile.RemoveTracked), so no partial output remains, one line on
// stderr says how to resume, and the process exits with 128 + the signal's
// number (130 for SIGINT, 143 for SIGTERM), as a shell reports it. Files
// already renamed into place are whole, and a sweep's recorded runs stay
// recorded. Stopping the process from outside the hot loops, rather than
// polling a context inside them, bounds the delay by the handler's own
// work for every command alike.
func stopOnSignal(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		signalled.Store(true)
		atomicfile.RemoveTracked()
		hint, _ := resumeHint.Load().(string)
		if hint == "" {
			hint = defaultResumeHint
		}
		fmt.Fprintf(stderr, "pipelab: stopped by %s; %s\n", signalName(sig), hint)
		os.Exit(exitStatus(sig))
	}()
}

// signalName is the signal's conventional name.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// exitStatus is 128 + the signal's number.
func exitStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
