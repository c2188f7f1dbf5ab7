package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pipelab/pipelab/internal/atomicfile"
	typed "github.com/pipelab/pipelab/request"
)

// answer is the API's reply to a command: the command line that gives the
// same report (for the page to show and the user to repeat) and the
// report's JSON encoding, with the simulated timeline for simulate.
type answer struct {
	Command  string          `json:"command"`
	Report   json.RawMessage `json:"report,omitempty"`
	Text     string          `json:"text,omitempty"`
	Timeline *Timeline       `json:"timeline,omitempty"`
}

// call is one request ready for the library: its flags as a command
// line's arguments (which the library's decoders read), the command line
// to show, and the private folder its uploads are written to, removed by done (or, if the process is stopped by a signal
// first, by the signal's handler: atomicfile.RemoveTracked).
type call struct {
	args []string
	line string
	dir  string
	req  request
}

func (c *call) done() {
	os.RemoveAll(c.dir)
	atomicfile.Untrack(c.dir)
	if c.req.bodyBytes > largeBody {
		// Decoding the body and running its command grew the heap by
		// several times the body; the runtime would keep that memory
		// from the OS for minutes (BenchmarkUploadRetainedMemory).
		debug.FreeOSMemory()
	}
}

// largeBody is the body above which a finished request hands its memory
// back to the OS at once.
const largeBody = 1 << 20

// prepare decodes the request of command and writes its uploads.
func (s *Server) prepare(w http.ResponseWriter, r *http.Request, command string) (*call, *refusal) {
	req, re := s.decode(w, r)
	if re != nil {
		return nil, re
	}
	flags, err := s.flagsOf(command)
	if err != nil {
		return nil, refuse(http.StatusNotImplemented, "", "%v", err)
	}
	dir, err := os.MkdirTemp("", "pipelab-serve-")
	if err != nil {
		return nil, refuse(http.StatusInternalServerError, "", "%v", err)
	}
	if err := atomicfile.Track(dir); err != nil {
		os.RemoveAll(dir)
		return nil, refuse(http.StatusServiceUnavailable, "", "pipelab serve is stopping")
	}
	c := &call{dir: dir, req: req}
	if c.args, re = req.args(command, dir, flags); re != nil {
		c.done()
		return nil, re
	}
	c.line = commandLine(c.args, dir, req)
	return c, nil
}

func (s *Server) serveCommand(w http.ResponseWriter, r *http.Request) {
	command := r.PathValue("command")
	if _, ok := s.commandNamed(command); !ok && command != "train" {
		s.writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("pipelab: unknown command %q", command)})
		return
	}
	c, re := s.prepare(w, r, command)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	defer c.done()
	ans, re := s.runCall(r.Context(), command, c)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	s.writeJSON(w, http.StatusOK, ans)
}

// runCall runs c's command through the library once a slot is free,
// cancelled with ctx: a simulate's answer carries the timeline, a
// schedule's its text.
func (s *Server) runCall(ctx context.Context, command string, c *call) (answer, *refusal) {
	switch command {
	case "simulate":
		return s.simulateCall(ctx, c)
	case "schedule":
		text, re := s.schedule(ctx, c, "text")
		if re != nil {
			return answer{}, re
		}
		return answer{Command: c.line, Text: string(text)}, nil
	}
	cmd, ok := s.commandNamed(command)
	if !ok {
		return answer{}, refuse(http.StatusNotImplemented, "", "this server does not run %s", command)
	}
	return s.libraryCall(ctx, cmd, c)
}

// statusClientGone is nginx's 499, "client closed request": nobody reads
// it, but it is what the log of a cancelled request should say.
const statusClientGone = 499

// commandLine is args as the user would type them, the uploaded files by
// their own names.
func commandLine(args []string, dir string, req request) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		a = stripDir(a, dir, req)
		if strings.ContainsAny(a, " '\"$`\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return "pipelab " + strings.Join(quoted, " ")
}

// downloads are the files the page offers: the command each runs, its
// format, and the flags it keeps of the page's request.
var downloads = map[string]struct {
	command, format, file, mime string
}{
	"csv":          {"schedule", "csv", "schedule.csv", "text/csv"},
	"trace":        {"simulate", "", "trace.json", "application/json"},
	"report.json":  {"simulate", "json", "simulate.json", "application/json"},
	"report.txt":   {"simulate", "text", "simulate.txt", "text/plain"},
	"compare.json": {"compare", "json", "compare.json", "application/json"},
	"compare.txt":  {"compare", "text", "compare.txt", "text/plain"},
}

func (s *Server) serveDownload(w http.ResponseWriter, r *http.Request) {
	d, ok := downloads[r.PathValue("what")]
	if !ok {
		s.writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("no download %q", r.PathValue("what"))})
		return
	}
	if d.command == "schedule" {
		s.serveScheduleCSV(w, r, d.file, d.mime)
		return
	}
	c, re := s.prepare(w, r, d.command)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	defer c.done()
	if d.command == "simulate" {
		s.serveSimulateFile(r.Context(), w, c, d.format, d.file, d.mime)
		return
	}
	cmd, _ := s.commandNamed(d.command)
	s.serveLibraryFile(r.Context(), w, cmd, c, d.format, d.file, d.mime)
}

// serveScheduleCSV is the csv download: "schedule --format csv" with the
// flags of the page's request that schedule takes (the page sends the
// whole panel), the others dropped.
func (s *Server) serveScheduleCSV(w http.ResponseWriter, r *http.Request, file, mime string) {
	req, re := s.decode(w, r)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	if _, ok := req.Files["schedule"]; ok {
		s.writeJSON(w, http.StatusBadRequest, problem{Error: "the schedule came from a file: it is its own CSV", Flag: "schedule"})
		return
	}
	flags, err := s.flagsOf("schedule")
	if err != nil {
		s.writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	kept := request{Flags: map[string]string{}}
	for n, v := range req.Flags {
		if fl, ok := flags[n]; ok && !fl.Refused && !fl.File {
			kept.Flags[n] = v
		}
	}
	args, re := kept.args("schedule", "", flags)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	body, re := s.schedule(r.Context(), &call{args: args, req: kept}, "csv")
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	s.writeFile(w, file, mime, body)
}

func (s *Server) writeFile(w http.ResponseWriter, name, mime string, body []byte) {
	s.writeDeadline(w)
	w.Header().Set("Content-Type", mime)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	_, _ = w.Write(body)
}

// libraryCall is the answer to a command the library types: its report's
// JSON encoding for a command whose --format json it is, else its text.
func (s *Server) libraryCall(ctx context.Context, cmd typed.Command, c *call) (answer, *refusal) {
	rep, re := s.runLibrary(ctx, cmd, c, c.args)
	if re != nil {
		return answer{}, re
	}
	ans := answer{Command: c.line}
	var buf bytes.Buffer
	if cmd.JSON {
		if err := json.NewEncoder(&buf).Encode(rep); err != nil {
			return answer{}, refuse(http.StatusInternalServerError, "", "%v", err)
		}
		ans.Report = json.RawMessage(stripDir(string(bytes.TrimSpace(buf.Bytes())), c.dir, c.req))
		return ans, nil
	}
	if err := rep.WriteText(&buf); err != nil {
		return answer{}, refuse(http.StatusInternalServerError, "", "%v", err)
	}
	ans.Text = buf.String()
	return ans, nil
}

// serveLibraryFile writes the report of a library command as a download,
// as --format format prints it (json indented, or text).
func (s *Server) serveLibraryFile(ctx context.Context, w http.ResponseWriter, cmd typed.Command, c *call, format, file, mime string) {
	rep, re := s.runLibrary(ctx, cmd, c, c.args)
	if re != nil {
		s.writeJSON(w, re.status, re.p)
		return
	}
	var buf bytes.Buffer
	if err := typed.WriteReport(&buf, format, rep, func() error { return rep.WriteText(&buf) }); err != nil {
		s.writeJSON(w, http.StatusInternalServerError, problem{Error: err.Error()})
		return
	}
	s.writeFile(w, file, mime, []byte(stripDir(buf.String(), c.dir, c.req)))
}
