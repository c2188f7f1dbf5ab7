package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/pipelab/pipelab/pipeline/sim"
	typed "github.com/pipelab/pipelab/request"
)

// simulate runs c's simulate through the library (runLibrary), no command
// line, and returns the typed report.
func (s *Server) simulate(ctx context.Context, c *call) (typed.SimulateReport, *refusal) {
	cmd, _ := typed.CommandNamed("simulate")
	rep, re := s.runLibrary(ctx, cmd, c, c.args)
	if re != nil {
		return typed.SimulateReport{}, re
	}
	sr, ok := rep.(typed.SimulateReport)
	if !ok || sr.Timeline == nil {
		return typed.SimulateReport{}, refuse(http.StatusInternalServerError, "", "pipelab serve: simulate gave no timeline")
	}
	return sr, nil
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
		err = rep.WriteText(&buf)
	default:
		err = typed.WriteReport(&buf, "json", rep, nil)
	}
	if err != nil {
		s.writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	s.writeFile(w, file, mime, buf.Bytes())
}
