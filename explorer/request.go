package explorer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// commands are the pipelab commands the page may run.
var commands = []string{"simulate", "compare", "tune", "delays", "schedule", "check", "train", "presets", "kinds"}

// fileFlags name a file the command reads; the page sends the file's
// contents, which the server writes to a private folder under the file's
// own name, so that the command's errors name the file as the user knows it.
var fileFlags = []string{"schedule", "model-config", "hardware", "costs", "profile", "data", "labels", "max-memory"}

// refusedFlags are flags the page may not pass: those that write files on
// the machine or set the format (the server sets it), and those that read a
// path given as text (the page sends files' contents instead).
var refusedFlags = []string{"trace", "gantt", "baseline-gantt", "out", "format", "schedule", "model-config", "hardware", "costs", "profile", "data", "labels", "max-memory"}

// maxRequestBytes bounds a request body: flags and the uploaded files.
const maxRequestBytes = 64 << 20

// upload is a file the page sends for a file flag.
type upload struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// request is what the page posts: a command's flags by their command-line
// names, values as typed, and files for the file flags.
type request struct {
	Flags map[string]string `json:"flags"`
	Files map[string]upload `json:"files"`
}

// problem is an error answer: the command line's one-line message, and the
// flag it names, for the page to show the message beside that field.
type problem struct {
	Error string `json:"error"`
	Flag  string `json:"flag,omitempty"`
}

func decodeRequest(w http.ResponseWriter, r *http.Request) (request, error) {
	var req request
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		// A cross-site form post cannot send application/json without the
		// browser asking first (CORS), which this server never grants.
		return req, fmt.Errorf("the API takes application/json, got %q", ct)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("request body: %v", err)
	}
	return req, nil
}

// args builds the command line of req: --name=value for each flag in
// name order (so one request always gives one command line) and the
// uploaded files written under dir.
func (req request) args(command, dir string) ([]string, error) {
	out := []string{command}
	names := make([]string, 0, len(req.Flags))
	for n := range req.Flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := strings.TrimSpace(req.Flags[n])
		if v == "" {
			continue // an empty field takes the flag's default
		}
		if slices.Contains(refusedFlags, n) || !validName.MatchString(n) {
			return nil, problemError{problem{Error: fmt.Sprintf("pipelab %s: --%s cannot be set from the page", command, n), Flag: n}}
		}
		out = append(out, "--"+n+"="+v)
	}
	files := make([]string, 0, len(req.Files))
	for n := range req.Files {
		files = append(files, n)
	}
	sort.Strings(files)
	for _, n := range files {
		f := req.Files[n]
		if !slices.Contains(fileFlags, n) {
			return nil, problemError{problem{Error: fmt.Sprintf("pipelab %s: --%s does not take a file", command, n), Flag: n}}
		}
		base := filepath.Base(filepath.Clean("/" + f.Name))
		if base == "/" || base == "." {
			base = n
		}
		sub := filepath.Join(dir, n)
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, err
		}
		path := filepath.Join(sub, base)
		if err := os.WriteFile(path, []byte(f.Text), 0o600); err != nil {
			return nil, err
		}
		out = append(out, "--"+n+"="+path)
	}
	return out, nil
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

type problemError struct{ p problem }

func (e problemError) Error() string { return e.p.Error }

// flagIn finds the first --flag a message names.
var flagIn = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// problemOf turns a command's error output into a problem: its first line,
// with the private folder's paths cut back to the names the user gave. The
// field is the first flag the line names, else the uploaded file it names.
func problemOf(stderr, dir string, req request) problem {
	msg := strings.TrimSpace(stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = stripDir(msg, dir)
	p := problem{Error: msg}
	if m := flagIn.FindStringSubmatch(msg); m != nil {
		p.Flag = m[1]
		return p
	}
	for _, n := range fileFlags {
		if f, ok := req.Files[n]; ok && strings.Contains(msg, filepath.Base(filepath.Clean("/"+f.Name))+":") {
			p.Flag = n
			return p
		}
	}
	return p
}

// stripDir removes dir/FLAG/ before the uploaded files' names.
func stripDir(s, dir string) string {
	if dir == "" {
		return s
	}
	for _, n := range fileFlags {
		s = strings.ReplaceAll(s, filepath.Join(dir, n)+string(filepath.Separator), "")
	}
	return strings.ReplaceAll(s, dir+string(filepath.Separator), "")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}
