//go:build js && wasm && replay

package main

import (
	"context"
	"io"
	"runtime"
	"time"

	"github.com/pipelab/pipelab/request"
)

// Go's js/wasm port runs one goroutine at a time and switches only when
// the running one blocks: a replay computing in the worker would hold its
// records (the explorer's stream writer never runs) until it ends. And the
// port returns to the browser's event loop only when every goroutine waits
// for a timer that is not yet due: until then the worker reads no message
// (a cancel). So after each record the replay yields to the stream writer,
// which hands the record to the page at once, and, at most every
// messagesEvery, sleeps for messagesPause, which lets the worker read its
// messages. A pause shorter than a millisecond is due before the scheduler
// looks again and never reaches the event loop; the browser clamps the
// timer to a few milliseconds, so pausing at every record would cost that
// much per record.
const (
	messagesEvery = 20 * time.Millisecond
	messagesPause = time.Millisecond
)

// streamed is c with its records handed on as they are taken (above).
func streamed(c request.Command) request.Command {
	inner := c.Stream
	if inner == nil {
		return c
	}
	c.Stream = func(ctx context.Context, args []string, record func(any), stderr io.Writer) (request.Report, error) {
		if record == nil {
			return inner(ctx, args, nil, stderr)
		}
		last := time.Now()
		return inner(ctx, args, func(p any) {
			record(p)
			runtime.Gosched()
			if time.Since(last) >= messagesEvery {
				time.Sleep(messagesPause)
				last = time.Now()
			}
		}, stderr)
	}
	return c
}
