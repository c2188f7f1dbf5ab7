//go:build js && wasm && replay

package main

import (
	"context"
	"io"
	"time"

	"github.com/pipelab/pipelab/request"
)

// recordPause is how long a replay pauses after each record it takes.
// Go's js/wasm port returns to the browser's event loop only when every
// goroutine waits: without the pause a replay computing in the worker
// would hold its records (the explorer's stream writer never runs) and the
// worker's messages (a cancel) until it ends. A sleep this short lets the
// stream writer flush the record to the page and the worker read its
// messages; browsers clamp the timer to a few milliseconds, a small cost
// at the records' rate (--log-points per replay).
const recordPause = time.Microsecond

// streamed is c with its records handed on as they are taken: each record
// is passed to the explorer's stream, then the replay pauses (recordPause).
func streamed(c request.Command) request.Command {
	inner := c.Stream
	if inner == nil {
		return c
	}
	c.Stream = func(ctx context.Context, args []string, record func(any), stderr io.Writer) (request.Report, error) {
		if record == nil {
			return inner(ctx, args, nil, stderr)
		}
		return inner(ctx, args, func(p any) {
			record(p)
			time.Sleep(recordPause)
		}, stderr)
	}
	return c
}
