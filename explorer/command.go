package explorer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// answer is the API's reply to a command: the command line it ran (for the
// page to show and the user to repeat) and the command's JSON report, with
// the simulated timeline for simulate.
type answer struct {
	Command  string          `json:"command"`
	Report   json.RawMessage `json:"report,omitempty"`
	Text     string          `json:"text,omitempty"`
	Timeline *Timeline       `json:"timeline,omitempty"`
}

// jsonCommands write --format json; the others print text.
var jsonCommands = []string{"simulate", "compare", "tune", "delays", "check", "train", "presets"}

func (s *Server) serveCommand(w http.ResponseWriter, r *http.Request) {
	command := r.PathValue("command")
	if !slices.Contains(commands, command) {
		writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("pipelab: unknown command %q", command)})
		return
	}
	req, err := decodeRequest(w, r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, problem{Error: err.Error()})
		return
	}
	ans, p, status := s.runRequest(command, req, command == "simulate")
	if p != nil {
		writeJSON(w, status, p)
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

// runRequest runs command with req's flags in a private folder, with
// --format json where the command writes it, and for simulate with
// withTimeline a Chrome trace read back into the answer's timeline.
func (s *Server) runRequest(command string, req request, withTimeline bool) (answer, *problem, int) {
	dir, err := os.MkdirTemp("", "pipelab-serve-")
	if err != nil {
		return answer{}, &problem{Error: err.Error()}, http.StatusInternalServerError
	}
	defer os.RemoveAll(dir)
	args, err := req.args(command, dir)
	if err != nil {
		if pe, ok := err.(problemError); ok {
			return answer{}, &pe.p, http.StatusBadRequest
		}
		return answer{}, &problem{Error: err.Error()}, http.StatusInternalServerError
	}
	ans := answer{Command: commandLine(args, dir)}
	if slices.Contains(jsonCommands, command) {
		args = append(args, "--format=json")
	}
	trace := filepath.Join(dir, "trace.json")
	if withTimeline {
		args = append(args, "--trace="+trace)
	}
	var stdout, stderr bytes.Buffer
	if code := s.run(args, &stdout, &stderr); code != 0 {
		p := problemOf(stderr.String(), dir, req)
		status := http.StatusBadRequest // exit status 2: bad input
		if code != 2 {
			status = http.StatusUnprocessableEntity
		}
		return answer{}, &p, status
	}
	if slices.Contains(jsonCommands, command) {
		ans.Report = json.RawMessage(stripDir(string(bytes.TrimSpace(stdout.Bytes())), dir))
	} else {
		ans.Text = stdout.String()
	}
	if withTimeline {
		f, err := os.Open(trace)
		if err != nil {
			return answer{}, &problem{Error: err.Error()}, http.StatusInternalServerError
		}
		defer f.Close()
		if ans.Timeline, err = ReadTimeline(f); err != nil {
			return answer{}, &problem{Error: err.Error()}, http.StatusInternalServerError
		}
	}
	return ans, nil, 0
}

// run runs one command line at a time.
func (s *Server) run(args []string, stdout, stderr *bytes.Buffer) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Run(args, stdout, stderr)
}

// commandLine is args as the user would type them, the uploaded files by
// their own names.
func commandLine(args []string, dir string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		a = stripDir(a, dir)
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

// scheduleFlags are the flags of a generated table that "schedule" takes.
var scheduleFlags = []string{"kind", "ranks", "microbatches", "total-microbatches", "chunks", "max-activations", "local-steps",
	"cost-model", "fwd", "bwd", "wgrad", "comm", "model", "gpu", "link", "microbatch-size", "seq-len", "flash-attention", "efficiency", "max-memory"}

func (s *Server) serveDownload(w http.ResponseWriter, r *http.Request) {
	d, ok := downloads[r.PathValue("what")]
	if !ok {
		writeJSON(w, http.StatusNotFound, problem{Error: fmt.Sprintf("no download %q", r.PathValue("what"))})
		return
	}
	req, err := decodeRequest(w, r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, problem{Error: err.Error()})
		return
	}
	if d.command == "schedule" {
		kept := map[string]string{}
		for n, v := range req.Flags {
			if slices.Contains(scheduleFlags, n) {
				kept[n] = v
			}
		}
		req.Flags = kept
		if _, ok := req.Files["schedule"]; ok {
			writeJSON(w, http.StatusBadRequest, problem{Error: "the schedule came from a file: it is its own CSV", Flag: "schedule"})
			return
		}
	}
	body, p, status := s.download(d.command, d.format, req)
	if p != nil {
		writeJSON(w, status, p)
		return
	}
	w.Header().Set("Content-Type", d.mime)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", d.file))
	_, _ = w.Write(body)
}

// download runs command for a file: its output in format, or the Chrome
// trace when format is empty.
func (s *Server) download(command, format string, req request) ([]byte, *problem, int) {
	dir, err := os.MkdirTemp("", "pipelab-serve-")
	if err != nil {
		return nil, &problem{Error: err.Error()}, http.StatusInternalServerError
	}
	defer os.RemoveAll(dir)
	args, err := req.args(command, dir)
	if err != nil {
		if pe, ok := err.(problemError); ok {
			return nil, &pe.p, http.StatusBadRequest
		}
		return nil, &problem{Error: err.Error()}, http.StatusInternalServerError
	}
	trace := filepath.Join(dir, "trace.json")
	if format == "" {
		args = append(args, "--format=json", "--trace="+trace)
	} else {
		args = append(args, "--format="+format)
	}
	var stdout, stderr bytes.Buffer
	if code := s.run(args, &stdout, &stderr); code != 0 {
		p := problemOf(stderr.String(), dir, req)
		return nil, &p, http.StatusBadRequest
	}
	if format != "" {
		return stdout.Bytes(), nil, 0
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		return nil, &problem{Error: err.Error()}, http.StatusInternalServerError
	}
	return b, nil, 0
}
