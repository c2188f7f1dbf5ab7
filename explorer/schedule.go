package explorer

import (
	"bytes"
	"context"
	"net/http"
	"slices"

	typed "github.com/pipelab/pipelab/request"
)

// schedule runs c's schedule with --format format through the library
// (runLibrary), no command line, and returns what it prints.
func (s *Server) schedule(ctx context.Context, c *call, format string) ([]byte, *refusal) {
	cmd, _ := typed.CommandNamed("schedule")
	rep, re := s.runLibrary(ctx, cmd, c, append(slices.Clip(c.args), "--format="+format))
	if re != nil {
		return nil, re
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		return nil, refuse(http.StatusInternalServerError, "", "%v", err)
	}
	return buf.Bytes(), nil
}
