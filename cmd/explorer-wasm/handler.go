//go:build js && wasm

package main

import (
	"net/http"

	"github.com/pipelab/pipelab/explorer"
)

// newHandler is the explorer's server as the library builds it
// (explorer.New), one command at a time: the worker has one thread.
func newHandler() http.Handler {
	return explorer.New(explorer.Options{Slots: 1}).Handler()
}
