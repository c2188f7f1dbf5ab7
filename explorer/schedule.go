package explorer

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"

	typed "github.com/pipelab/pipelab/request"
)

// schedule runs c's schedule with --format format once a slot is free,
// cancelled with ctx: its flags decoded into the library's typed request
// and run (Server.Schedule), no command line.
func (s *Server) schedule(ctx context.Context, c *call, format string) ([]byte, *refusal) {
	if s.Schedule == nil {
		return nil, refuse(http.StatusNotImplemented, "", "this server builds no schedules")
	}
	args := append(slices.Clip(c.args), "--format="+format)
	rep, re := runTyped(ctx, s, c, func(stderr io.Writer) (typed.ScheduleReport, int) {
		return s.Schedule(ctx, args, stderr)
	})
	if re != nil {
		return nil, re
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		return nil, refuse(http.StatusInternalServerError, "", "%v", err)
	}
	return buf.Bytes(), nil
}
