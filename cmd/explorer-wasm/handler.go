//go:build js && wasm

package main

import (
	"net/http"

	"github.com/pipelab/pipelab/explorer"
)

// newHandler is the explorer's handler, one command at a time (the
// worker has one thread).
func newHandler() http.Handler {
	s := &explorer.Server{Slots: 1}
	return s.Handler()
}
