package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/pipelab/pipelab/pipeline/sim"
	typed "github.com/pipelab/pipelab/request"
)

// simulate runs c's simulate once a slot is free, cancelled with ctx: its
// flags decoded into the library's typed request and run (Server.Simulate),
// no command line. It returns the typed report, or the error as a problem
// with the HTTP status of its exit status (statusOf).
func (s *Server) simulate(ctx context.Context, c *call) (typed.SimulateReport, *refusal) {
	if s.Simulate == nil {
		return typed.SimulateReport{}, refuse(http.StatusNotImplemented, "", "this server draws no timelines")
	}
	rep, re := runTyped(ctx, s, c, func(stderr io.Writer) (typed.SimulateReport, int) {
		rep, code := s.Simulate(ctx, c.args, stderr)
		if code == 0 && rep.Timeline == nil {
			fmt.Fprintln(stderr, "pipelab serve: simulate gave no timeline")
			code = 1
		}
		return rep, code
	})
	return rep, re
}

// simulateCall is the answer to a simulate: the report's JSON encoding
// (the uploads by their own names) and its timeline as the page's columns.
func (s *Server) simulateCall(ctx context.Context, c *call) (answer, *refusal) {
	rep, re := s.simulate(ctx, c)
	if re != nil {
		return answer{}, re
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return answer{}, refuse(http.StatusInternalServerError, "", "%v", err)
	}
	return answer{Command: c.line, Report: json.RawMessage(stripDir(string(b), c.dir, c.req)), Timeline: TimelineOf(rep.Timeline)}, nil
}

// serveSimulateFile writes a simulate download: the Chrome trace (format
// ""), as simulate --trace writes it, or the report as simulate --format
// json (indented, as the command line prints it) or text prints it.
func (s *Server) serveSimulateFile(ctx context.Context, w http.ResponseWriter, c *call, format, file, mime string) {
	if format == "text" && s.SimulateText == nil {
		s.writeJSON(w, http.StatusNotImplemented, problem{Error: "this server prints no simulate text"})
		return
	}
	rep, re := s.simulate(ctx, c)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case "":
		err = sim.WriteChromeTrace(&buf, rep.Timeline)
	case "text":
		err = s.SimulateText(&buf, rep)
	default:
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	}
	if err != nil {
		s.writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	s.writeFile(w, file, mime, buf.Bytes())
}
