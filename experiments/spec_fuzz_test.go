package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSpec checks ParseSpec on any input: it never panics, every
// rejection is a *SpecError naming the file and saying what is wrong, and
// every accepted spec expands (its size already checked by the validator)
// into runs with distinct ids and indices in order. Seeds are the shipped
// examples and test specs.
func FuzzParseSpec(f *testing.F) {
	paths, _ := filepath.Glob("../examples/*.yaml")
	paths = append(paths, "testdata/tiny.yaml")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(base))
	for _, s := range []string{"", "experiment: x\n", "stages: [2, 1]\n", "{", "seeds: 99999999999999999999\n", "methods: [{name: rpd, deltas: [-1]}]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.yaml", data)
		if err != nil {
			var se *SpecError
			if !strings.Contains(err.Error(), "fuzz.yaml") || errors.As(err, &se) && (se.Msg == "" || se.Line < 0) {
				t.Fatalf("rejection %q does not name fuzz.yaml and say what is wrong", err)
			}
			return
		}
		runs := s.Expand()
		ids := map[string]bool{}
		for i, r := range runs {
			if r.Index != i || ids[r.ID] {
				t.Fatalf("run %d: index %d, id %s seen before: %v", i, r.Index, r.ID, ids[r.ID])
			}
			ids[r.ID] = true
		}
	})
}
