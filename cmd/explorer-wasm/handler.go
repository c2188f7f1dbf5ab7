//go:build js && wasm && !replay

package main

import (
	"net/http"

	"github.com/pipelab/pipelab/explorer"
)

// newHandler is the explorer's server as the library builds it
// (explorer.New), one command at a time: the worker has one thread. This
// build (pipelab.wasm) leaves out train, which needs Arrow; the replay
// build (-tags replay, handler_replay.go) adds it.
func newHandler() http.Handler {
	return explorer.New(explorer.Options{Slots: 1}).Handler()
}
