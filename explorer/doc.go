// Package explorer is the page "pipelab serve" serves: a schedule explorer
// in the browser (docs/explorer.md). It holds the HTTP handlers of a small
// JSON API and the page's own HTML, CSS and JavaScript, embedded in the
// binary so that the page works offline. New builds the server from the
// library alone, so that any main package (pipelab serve, the static
// WebAssembly build) serves the same page.
//
// The API does not compute anything itself, and runs no command line.
// Each request names a pipelab command and its flags; the server has the
// flags decoded into the library's typed request by the decoder the
// command line uses (request.CommandNamed: simulate, schedule, check,
// delays, compare, tune, presets, kinds; train, which needs Arrow, handed
// in through Options.Commands) and calls the library: the report is the
// typed report's encoding. The numbers on the page and the command line's
// are therefore one computation, the one-line errors are the command
// line's, and a request too large for the memory limit is refused by the
// command's own size guard before anything is allocated. An error's HTTP
// status comes from its kind (fault) in one place (httpStatus).
//
// Commands run side by side, one per slot (one per core by default), the
// others queued in order of arrival (queue.go); each runs with its
// request's context, so a request given up stops its command. A request
// is bounded before it is decoded (request.go), may set only the flags the
// command's own flag set lets the page set (request.FlagsOf: no path on
// the server), and passes the guard (guard.go) first. A replay streams its
// records through a writer of its own, so that a client that stops reading
// holds up nothing but itself (train.go).
package explorer
