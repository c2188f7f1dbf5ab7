//go:build js && wasm && replay

package main

import (
	"net/http"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/request"
	"github.com/pipelab/pipelab/request/train"
)

// newHandler is the replay build's server (pipelab-replay.wasm, built with
// -tags replay): the explorer as the library builds it, one command at a
// time, with train handed in as "pipelab serve" hands it in, its records
// yielding to the browser (streamed). It links Arrow, so the page loads it
// only for its first replay.
func newHandler() http.Handler {
	return explorer.New(explorer.Options{Slots: 1, Commands: []request.Command{streamed(train.Command())}}).Handler()
}
