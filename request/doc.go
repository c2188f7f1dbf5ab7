// Package request holds the commands' typed requests and reports, called
// alike by the command line, the server and Go: each command a function
// func(ctx, Request) (Report, error) whose Report's JSON encoding is what
// the command prints with --format json.
//
// Simulate is the first: pipelab simulate decodes its flags into a
// SimulateRequest (a table, its pricing and the simulator's options),
// calls Simulate and prints the SimulateReport. The package imports the
// pipeline packages only (no Arrow), so that the explorer and Go users
// can call it without the command line.
package request
