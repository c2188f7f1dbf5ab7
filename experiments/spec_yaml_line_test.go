package experiments

import (
	"strings"
	"testing"
)

// TestYAMLSyntaxErrorLine: a YAML syntax error is reported at the line it
// is on: yaml.v3 reports the line where the enclosing construct starts,
// counted from 0 for its parser's errors (issue 39: an unclosed bracket on
// line 2 was reported at line 1; a tab on line 3 at line 2).
func TestYAMLSyntaxErrorLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"experiment: a\nseed: [1\nn: 3\n", "s.yaml:2: did not find expected ',' or ']'"},
		{"experiment: a\nseed: 1\n\tn: 3\n", "s.yaml:3: found a tab character"},
		{"experiment: a\n  bad: 1\n", "s.yaml:2: mapping values are not allowed"},
		{"experiment: a\ncost: {model: x\nseed: 2\n", "s.yaml:2: did not find expected ',' or '}'"},
		{"seed: [1, 2\n", "s.yaml:1: did not find expected ',' or ']'"},
	} {
		_, err := ParseSpec("s.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
	// In a stream, lines count from the top of the file.
	_, err := ParseSpecs("s.yaml", []byte("# a header\n---\nexperiment: b\nseed: [1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:4: did not find expected") {
		t.Errorf("stream: %v, want s.yaml:4", err)
	}
}
