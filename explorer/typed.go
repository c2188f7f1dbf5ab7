package explorer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/pipelab/pipelab/fault"
	typed "github.com/pipelab/pipelab/request"
)

// flagsOf says how the page may set each flag of command, read from its
// flag set.
func (s *Server) flagsOf(command string) (map[string]Flag, error) {
	cmd, ok := s.commandNamed(command)
	if !ok {
		return nil, fmt.Errorf("this server does not run %s", command)
	}
	served, err := cmd.Flags()
	if err != nil {
		return nil, fmt.Errorf("pipelab %s: %w", command, err)
	}
	out := make(map[string]Flag, len(served))
	for n, f := range served {
		out[n] = Flag(f)
	}
	return out, nil
}

// commandNamed is the library's command of that name, or one of
// Commands.
func (s *Server) commandNamed(name string) (typed.Command, bool) {
	if cmd, ok := typed.CommandNamed(name); ok {
		return cmd, true
	}
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return typed.Command{}, false
}

// runLibrary runs the library's command with args (args[0] is the
// command) once a slot is free, cancelled with ctx: the server's path for
// every command the library types, which runs no command line. An error
// becomes a problem with its HTTP status (httpStatus).
func (s *Server) runLibrary(ctx context.Context, cmd typed.Command, c *call, args []string) (typed.Report, *refusal) {
	if err := s.queue.acquire(ctx, nil); err != nil {
		return nil, refuse(statusClientGone, "", "%v", err)
	}
	defer s.queue.release()
	var stderr bytes.Buffer
	rep, err := cmd.Run(ctx, args[1:], &stderr)
	if ctx.Err() != nil {
		return nil, refuse(statusClientGone, "", "%v", ctx.Err())
	}
	if err != nil {
		if msg := typed.Message(cmd.Name, err); msg != "" {
			stderr.WriteString(msg + "\n")
		}
		return nil, &refusal{httpStatus(err), problemOf(stderr.String(), c.dir, c.req)}
	}
	return rep, nil
}

// httpStatus is the one mapping of a library error to the API's HTTP
// status: bad input (and a usage error) 400, a file not found 404, a size
// refused 413 (fault's kinds), any other failure of a run 422.
func httpStatus(err error) int {
	switch fault.Kind(err) {
	case fault.TooLarge:
		return http.StatusRequestEntityTooLarge
	case fault.NotFound:
		return http.StatusNotFound
	case fault.BadInput:
		return http.StatusBadRequest
	}
	if errors.Is(err, typed.ErrUsage) {
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}
