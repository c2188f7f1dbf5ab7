package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Flag says how the page may set one flag of a command.
type Flag struct {
	// File marks a flag that names a file the command reads: the page
	// sends the file's contents, which the server writes to a private
	// folder under the file's own name, so that the command's errors name
	// the file as the user knows it. Keywords are values of the flag that
	// name no file (--delays exact), which the page may send as they are;
	// any other value is refused, so that no request names a path of the
	// server's.
	File     bool
	Keywords []string
	// Refused marks a flag the page may not set at all: one that names a
	// file the command writes, or that the server sets itself (--format,
	// --max-memory).
	Refused bool
}

// Bounds of a request body, checked as it is read, before anything is
// decoded beyond them: its bytes (a Content-Length above is refused
// before the body is read), the flags, a flag's name and value, and the
// uploaded files.
const (
	maxRequestBytes = 32 << 20
	maxFlags        = 256
	maxFlagBytes    = 4 << 10
	maxFiles        = 16
)

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
	// bodyBytes is the body's length as read.
	bodyBytes int64
}

// problem is an error answer: the command line's one-line message, and the
// flag it names, for the page to show the message beside that field.
type problem struct {
	Error string `json:"error"`
	Flag  string `json:"flag,omitempty"`
}

// refusal is a problem with its HTTP status.
type refusal struct {
	status int
	p      problem
}

func (e *refusal) Error() string { return e.p.Error }

func refuse(status int, flag, format string, a ...any) *refusal {
	return &refusal{status, problem{Error: fmt.Sprintf(format, a...), Flag: flag}}
}

// decode is decodeRequest once one of the decoding slots is free, so
// that the bodies decoded at once, and the memory they take, are bounded.
func (s *Server) decode(w http.ResponseWriter, r *http.Request) (request, *refusal) {
	select {
	case s.decoding <- struct{}{}:
		defer func() { <-s.decoding }()
	case <-r.Context().Done():
		return request{}, refuse(statusClientGone, "", "%v", r.Context().Err())
	}
	return decodeRequest(w, r)
}

// decodeRequest reads the body of a JSON post within the bounds above:
// a body too long is refused (413) before it is read or as soon as it
// passes maxRequestBytes, and too many or too long flags as soon as they
// are seen, so that a request costs at most its bounded bytes. Once the
// body is read, the read deadline the server set (ReadTimeout) is lifted:
// the command may run longer, and the request's context must end only
// when the client goes.
func decodeRequest(w http.ResponseWriter, r *http.Request) (request, *refusal) {
	var req request
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		// A cross-site form post cannot send application/json without the
		// browser asking first (CORS), which this server never grants.
		return req, refuse(http.StatusUnsupportedMediaType, "", "the API takes application/json, got %q", ct)
	}
	if r.ContentLength > maxRequestBytes {
		return req, refuse(http.StatusRequestEntityTooLarge, "", "request body: %d bytes; the API takes at most %d (the flags and the uploaded files)", r.ContentLength, maxRequestBytes)
	}
	body := &countingReader{r: http.MaxBytesReader(w, r.Body, maxRequestBytes)}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields() // in an uploaded file's object
	if err := readRequest(dec, &req); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return req, refuse(http.StatusRequestEntityTooLarge, "", "request body: longer than %d bytes, the most the API takes (the flags and the uploaded files)", maxRequestBytes)
		}
		if re, ok := err.(*refusal); ok {
			return req, re
		}
		return req, refuse(http.StatusBadRequest, "", "request body: %v", err)
	}
	req.bodyBytes = body.n
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	return req, nil
}

// readRequest reads {"flags": {NAME: VALUE, ...}, "files": {FLAG: {"name":
// ..., "text": ...}}} token by token, counting as it goes.
func readRequest(dec *json.Decoder, req *request) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	req.Flags, req.Files = map[string]string{}, map[string]upload{}
	for dec.More() {
		key, err := str(dec)
		if err != nil {
			return err
		}
		switch key {
		case "flags":
			err = readObject(dec, func(name string) error {
				v, err := str(dec)
				if err != nil {
					return fmt.Errorf("flag %q: %v", name, err)
				}
				if len(req.Flags) >= maxFlags {
					return refuse(http.StatusRequestEntityTooLarge, "", "request body: more than %d flags", maxFlags)
				}
				if len(name)+len(v) > maxFlagBytes {
					return refuse(http.StatusRequestEntityTooLarge, name, "request body: flag %.40q is longer than %d bytes", name, maxFlagBytes)
				}
				req.Flags[name] = v
				return nil
			})
		case "files":
			err = readObject(dec, func(name string) error {
				if len(req.Files) >= maxFiles {
					return refuse(http.StatusRequestEntityTooLarge, "", "request body: more than %d files", maxFiles)
				}
				var u upload
				if err := dec.Decode(&u); err != nil {
					return fmt.Errorf("file %q: %v", name, err)
				}
				req.Files[name] = u
				return nil
			})
		default:
			return fmt.Errorf("unknown key %q (the body has flags and files)", key)
		}
		if err != nil {
			return err
		}
	}
	if err := delim(dec, '}'); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more after the request's object")
	}
	return nil
}

// readObject reads an object whose values value reads, given each key.
func readObject(dec *json.Decoder, value func(key string) error) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		k, err := str(dec)
		if err != nil {
			return err
		}
		if err := value(k); err != nil {
			return err
		}
	}
	return delim(dec, '}')
}

func delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, t)
	}
	return nil
}

func str(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %v", t)
	}
	return s, nil
}

// args builds the command line of req: --name=value for each flag in
// name order (so one request always gives one command line) and the
// uploaded files written under dir. flags says how each flag may be set.
func (req request) args(command, dir string, flags map[string]Flag) ([]string, *refusal) {
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
		fl, ok := flags[n]
		switch {
		case !ok || !validName.MatchString(n):
			return nil, refuse(http.StatusBadRequest, n, "pipelab %s: the page cannot set --%.40s: %s has no such flag, or it is not for the page", command, n, command)
		case fl.Refused:
			return nil, refuse(http.StatusBadRequest, n, "pipelab %s: --%s cannot be set from the page", command, n)
		case fl.File && !slices.Contains(fl.Keywords, v):
			return nil, refuse(http.StatusBadRequest, n, "pipelab %s: --%s names a file: the page sends the file itself (files), never a path on the server", command, n)
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
		if !flags[n].File || !validName.MatchString(n) {
			return nil, refuse(http.StatusBadRequest, n, "pipelab %s: --%.40s does not take a file", command, n)
		}
		if _, dup := req.Flags[n]; dup && strings.TrimSpace(req.Flags[n]) != "" {
			return nil, refuse(http.StatusBadRequest, n, "pipelab %s: --%s is given both as a value and as a file", command, n)
		}
		base := filepath.Base(filepath.Clean("/" + f.Name))
		if base == "/" || base == "." {
			base = n
		}
		sub := filepath.Join(dir, n)
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, refuse(http.StatusInternalServerError, "", "%v", err)
		}
		path := filepath.Join(sub, base)
		if err := os.WriteFile(path, []byte(f.Text), 0o600); err != nil {
			return nil, refuse(http.StatusInternalServerError, "", "%v", err)
		}
		req.Files[n] = upload{Name: f.Name} // the file holds the text now: let it go
		out = append(out, "--"+n+"="+path)
	}
	return out, nil
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

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
	msg = stripDir(msg, dir, req)
	p := problem{Error: msg}
	if m := flagIn.FindStringSubmatch(msg); m != nil {
		p.Flag = m[1]
		return p
	}
	names := make([]string, 0, len(req.Files))
	for n := range req.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.Contains(msg, filepath.Base(filepath.Clean("/"+req.Files[n].Name))+":") {
			p.Flag = n
			return p
		}
	}
	return p
}

// stripDir removes dir/FLAG/ before the uploaded files' names.
func stripDir(s, dir string, req request) string {
	if dir == "" {
		return s
	}
	for n := range req.Files {
		s = strings.ReplaceAll(s, filepath.Join(dir, n)+string(filepath.Separator), "")
	}
	return strings.ReplaceAll(s, dir+string(filepath.Separator), "")
}

// writeJSON writes v as the answer, within the write timeout.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	s.writeDeadline(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
