// Package cputime reads the CPU time of this process, so that benchmarks
// on a shared machine can report CPU time beside the wall clock: the other
// jobs on the machine lengthen the wall clock, not a process's own CPU time.
package cputime
