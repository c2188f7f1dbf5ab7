package explorer

import (
	"bytes"
	"context"
	"io"
)

// runTyped runs one typed request (run, which writes its error to stderr
// as the command line would and returns the exit status) once a slot is
// free, cancelled with ctx: the server's path for the commands the
// library types (simulate, schedule), which runs no command line. The
// error becomes a problem with the HTTP status of its exit status
// (statusOf).
func runTyped[R any](ctx context.Context, s *Server, c *call, run func(stderr io.Writer) (R, int)) (R, *refusal) {
	var zero R
	if err := s.queue.acquire(ctx, nil); err != nil {
		return zero, refuse(statusClientGone, "", "%v", err)
	}
	defer s.queue.release()
	var stderr bytes.Buffer
	rep, code := run(&stderr)
	if ctx.Err() != nil {
		return zero, refuse(statusClientGone, "", "%v", ctx.Err())
	}
	if code != 0 {
		return zero, &refusal{statusOf(code), problemOf(stderr.String(), c.dir, c.req)}
	}
	return rep, nil
}
