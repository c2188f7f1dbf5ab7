// Package request holds the commands' typed requests and reports, called
// alike by the command line, the server and Go: each command a function
// func(ctx, Request) (Report, error) whose Report's JSON encoding is what
// the command prints with --format json.
//
// Simulate and Schedule are the first: pipelab simulate decodes its flags
// into a SimulateRequest (a table, its pricing and the simulator's
// options), calls Simulate and prints the SimulateReport; pipelab schedule
// decodes its into a ScheduleRequest (a table and the form to print it
// in) and writes the ScheduleReport. The server decodes the page's flags
// into the same requests and calls the same functions. The package
// imports the pipeline packages only (no Arrow), so that the explorer and
// Go users can call it without the command line.
package request
