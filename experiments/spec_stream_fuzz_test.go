package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/internal/budget"
)

// FuzzParseSpecs checks the reader of spec streams (documents split at
// "---" lines) on any input: it never panics, every rejection names the
// file and is bad input, and every accepted stream expands into runs with
// distinct ids and indices in order (ExpandAll). Seeds are the shipped
// examples and small streams (the figures' presets expand to thousands of
// runs, too slow an execution to fuzz).
func FuzzParseSpecs(f *testing.F) {
	examples, _ := filepath.Glob("../examples/*.yaml")
	for _, p := range examples {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "---\n", "# c\n---\nexperiment: a\n---\nexperiment: b\n", "---\n---\n", "experiment: a\n--- # x\nseed: [1\n"} {
		f.Add([]byte(s))
	}
	// A limit of 64 MiB keeps an accepted stream's expansion small, so
	// that an execution takes milliseconds (the validator sizes the runs
	// against it).
	budget.SetLimit(64 << 20)
	f.Cleanup(func() { budget.SetLimit(0) })
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
