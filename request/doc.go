// Package request holds the commands' typed requests and reports, called
// alike by the command line, the server and Go: each command a function
// func(ctx, Request) (Report, error) whose Report's JSON encoding is what
// the command prints with --format json, and whose WriteText is its text.
//
// Simulate, Schedule, Check, Delays, Compare, Tune, Presets and Kinds are
// here; train, whose replay needs experiments (and so Arrow), is in
// request/train. Each command's flags are decoded here too, once, by
// their command-line names (DecodeSimulate, DecodeSchedule, ...: the
// command line's flag kit, cli_*.go), so that pipelab and the server read
// the same flags the same way; CommandNamed gives the server each command
// as decode-then-run, and FlagsOf how a request may set each flag, read
// from the flag set itself. Errors are fault's kinds (bad input, not
// found, too large, else a failure). The package imports the pipeline
// packages, optim and experiments/costspec only (no Arrow), so that the
// explorer and a WebAssembly build can call it.
package request
