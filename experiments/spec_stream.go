package experiments

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// ReadSpecsFile reads a spec file of one spec or a stream of several
// (ParseSpecs).
func ReadSpecsFile(path string) ([]*Spec, error) {
	b, err := inputfile.ReadFile(path, "spec", inputfile.Spec)
	if err != nil {
		return nil, badInputf("%v", err) // a spec that cannot be read, or over the cap, is bad input
	}
	return ParseSpecs(path, b)
}

// StreamName names the sweep of a file's specs: the one spec's name, or
// for a stream of several the file's name without its extension, which
// must be a usable name (IsSafeName) as an experiment key must: it names
// the data set and its files.
func StreamName(path string, specs []*Spec) (string, error) {
	if len(specs) == 1 {
		return specs[0].Name, nil
	}
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if !IsSafeName(name) {
		return "", badInputf("%s: a stream of %d specs is named after its file, and %s is not a usable name (letters, digits, '.', '_' and '-', at most 100, not starting with '.' or '-'); rename the file",
			path, len(specs), quoteShort(name))
	}
	return name, nil
}

// ExpandAll expands validated specs into one list of runs, indexed in
// order, and refuses two runs with one id (two specs of a stream that
// describe the same run).
func ExpandAll(specs []*Spec) ([]Run, error) {
	var runs []Run
	for _, s := range specs {
		for _, r := range s.Expand() {
			r.Index = len(runs)
			runs = append(runs, r)
		}
	}
	if err := CheckUniqueIDs(runs); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	return runs, nil
}

// ParseSpecs decodes a YAML stream of specs, documents separated by lines
// of "---" (as EncodeSpecs writes them and as the figures' presets are
// shipped), each strictly and validated as ParseSpec does. Errors name
// the line in the whole stream. A stream of one document is one spec.
func ParseSpecs(file string, src []byte) ([]*Spec, error) {
	var specs []*Spec
	for _, doc := range splitDocuments(src) {
		if len(bytes.TrimSpace(doc.text)) == 0 || onlyComments(doc.text) {
			continue
		}
		// Blank lines in front keep the decoder's line numbers those of
		// the stream.
		padded := append(bytes.Repeat([]byte("\n"), doc.line-1), doc.text...)
		s, err := ParseSpec(file, padded)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, badInputf("%s: empty spec", file)
	}
	return specs, nil
}

// document is one document of a stream and the line it starts on.
type document struct {
	text []byte
	line int
}

// splitDocuments cuts src at its "---" lines (a marker may carry a
// comment). Specs hold no block scalars, where such a line could be text.
func splitDocuments(src []byte) []document {
	var docs []document
	start, startLine := 0, 1
	line := 1
	for i := 0; i < len(src); {
		end := bytes.IndexByte(src[i:], '\n')
		next := len(src)
		if end >= 0 {
			next = i + end + 1
		}
		if isMarker(src[i:next]) {
			docs = append(docs, document{src[start:i], startLine})
			start, startLine = next, line+1
		}
		i = next
		line++
	}
	return append(docs, document{src[start:], startLine})
}

// isMarker reports whether a line is a document marker: "---", alone or
// before a comment.
func isMarker(line []byte) bool {
	s := strings.TrimRight(string(line), " \t\r\n")
	rest, ok := strings.CutPrefix(s, "---")
	rest = strings.TrimLeft(rest, " \t")
	return ok && (rest == "" || strings.HasPrefix(rest, "#"))
}

// onlyComments reports whether text holds nothing but comments and blank
// lines (a file's header before its first marker).
func onlyComments(text []byte) bool {
	for l := range strings.SplitSeq(string(text), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}
