package experiments

import (
	"regexp"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// syntaxLine matches yaml.v3's "yaml: line N: message" of a syntax error.
var syntaxLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxErrorLine moves a YAML syntax error to the line it is on. yaml.v3
// reports the line where the enclosing construct started (its context
// mark), counted from 0 for its parser's errors and from 1 for its
// scanner's, so an unclosed bracket on line 2 came out at line 1 and a tab
// on line 3 at line 2. The line it is on is the first whose prefix of src
// fails with the same message: found by bisection, each step a parse of a
// prefix. Any other error is returned as it is.
func syntaxErrorLine(src []byte, err error) error {
	m := syntaxLine.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	msg := m[2]
	starts := []int{0}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	prefix := func(lines int) []byte {
		if lines >= len(starts) {
			return src
		}
		return src[:starts[lines]]
	}
	fails := func(lines int) bool {
		var n yaml.Node
		e := yaml.Unmarshal(prefix(lines), &n)
		if e == nil {
			return false
		}
		pm := syntaxLine.FindStringSubmatch(e.Error())
		return pm != nil && pm[2] == msg
	}
	line := sort.Search(len(starts), func(i int) bool { return fails(i + 1) }) + 1
	if line > len(starts) {
		return err
	}
	return &syntaxError{line: line, msg: msg}
}

// syntaxError is a YAML syntax error at its line, in yaml.v3's words, for
// yamlError.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return "yaml: line " + strconv.Itoa(e.line) + ": " + e.msg }
