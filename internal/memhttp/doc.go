// Package memhttp serves one HTTP request with an http.Handler in memory,
// without a network: the request's method, path and body go in, and the
// answer's status and headers, then its body in chunks (one per Flush,
// so that a stream arrives as it is written), come out.
//
// The explorer's static build (cmd/explorer-wasm) uses it to run the
// explorer's own handler inside a Web Worker: the page's requests are
// messages to the worker, not network requests, and the server code that
// answers them is the one "pipelab serve" runs.
package memhttp
