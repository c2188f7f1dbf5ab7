//go:build js && wasm

// Command explorer-wasm is the explorer's server compiled to WebAssembly
// for the static build (make explorer-static, docs/explorer.md): the page
// opened from any static host runs it in a Web Worker (explorer/assets/
// worker.js) and sends it the requests it would send "pipelab serve".
// Each request is served by the explorer's own http.Handler in memory
// (internal/memhttp), so the answers are the served page's, computed by
// the same code; the uploads the handler writes go to the worker's
// in-memory file system (explorer/assets/memfs.js).
//
// The worker calls pipelabServe(id, method, path, body) and
// pipelabCancel(id); the answer comes back through pipelabStart(id,
// status, headers), pipelabChunk(id, bytes) for each flushed part of the
// body, and pipelabEnd(id). pipelabReady() says the functions are set.
//
// Built as it is (pipelab.wasm) it serves every command but train, which
// links Arrow. Built with -tags replay (pipelab-replay.wasm, eight times
// the size) it hands train in as "pipelab serve" does, its records
// yielding to the browser as they are taken so that they stream and a
// cancel is read (streamed_replay.go); the page loads it into a second
// worker on its first replay (explorer/assets/static.js).
//
// Build it with GOOS=js GOARCH=wasm; it builds for no other target.
package main
