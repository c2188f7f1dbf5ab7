// Package atomicfile writes pipelab's output files whole or not at all: a
// file is written to a temporary file in its directory, synced and renamed
// over its path. Every temporary file, and every other file that must not
// outlive the process (an output folder's lock), is tracked while it
// exists, so that a signal handler can remove them all (RemoveTracked)
// before the process exits: a command stopped by SIGINT or SIGTERM leaves
// neither a partial file nor a stale temporary one.
package atomicfile
