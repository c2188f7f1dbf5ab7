package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSpecs checks the reader of spec streams (documents split at
// "---" lines) on any input: it never panics, every rejection names the
// file and is bad input, and every accepted stream expands into runs with
// distinct ids and indices in order (ExpandAll). Seeds are the figures'
// preset streams and the shipped examples.
func FuzzParseSpecs(f *testing.F) {
	paths, _ := filepath.Glob("figures/quick/*.yaml")
	examples, _ := filepath.Glob("../examples/*.yaml")
	for _, p := range append(paths[:min(len(paths), 3)], examples...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "---\n", "# c\n---\nexperiment: a\n---\nexperiment: b\n", "---\n---\n", "experiment: a\n--- # x\nseed: [1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, err := ParseSpecs("fuzz.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") || !errors.Is(err, ErrBadInput) {
				t.Fatalf("rejection %q does not name fuzz.yaml as bad input", err)
			}
			return
		}
		runs, err := ExpandAll(specs)
		if err != nil {
			return // two specs of the stream describe one run: refused by ExpandAll
		}
		for i, r := range runs {
			if r.Index != i {
				t.Fatalf("run %d has index %d", i, r.Index)
			}
		}
	})
}
