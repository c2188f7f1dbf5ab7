package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestParseSpecRefusesUnsafeNamesFractionsAndRepeats: issue 27's spec
// inputs that were taken silently or failed late are refused when the spec
// is read, with the file, the line and the key: an experiment name that
// is not a safe file name ("../escaped" made plot write outside its
// folder), a fraction or an out-of-range number in an integer key
// (seed: 1.5 was seed 1) and a value given twice in a list (a run-time
// "two runs share id" before). Each case changes one line of base (or
// appends one, line 15), as TestParseSpecRejects does.
func TestParseSpecRefusesUnsafeNamesFractionsAndRepeats(t *testing.T) {
	tests := []struct {
		name     string
		line     int
		text     string
		wantLine string
		wantKey  string
	}{
		{"name climbing out", 1, `experiment: "../escaped"`, ":1:", `experiment: "../escaped" is not a usable name`},
		{"name with a folder", 1, `experiment: "a/b"`, ":1:", `experiment: "a/b" is not a usable name`},
		{"hidden name", 1, `experiment: .t`, ":1:", `experiment: ".t" is not a usable name`},
		{"name with a NUL", 1, `experiment: "a\0b"`, ":1:", `experiment: "a\x00b" is not a usable name`},
		{"fractional seed", 2, "seed: 1.5", ":2:", `seed: "1.5" is not an integer`},
		{"negative seed", 2, "seed: -1", ":2:", `seed: "-1" is out of range`},
		{"fractional n", 4, "n: 40.5", ":4:", `n: "40.5" is not an integer`},
		{"20-digit n", 4, "n: 12345678901234567890", ":4:", `n: "12345678901234567890" is out of range`},
		{"fractional stage count", 7, "stages: [2, 4.5]", ":7:", `stages[1]: "4.5" is not an integer`},
		{"fractional microbatches", 8, "total_microbatches: [2e1]", ":8:", `total_microbatches[0]: "2e1" is not an integer`},
		{"fractional local steps", 0, "  - {name: localsgd, local_steps: [1.5], step_sizes: {values: [0.1]}}", ":15:", `methods[2].local_steps[0]: "1.5" is not an integer`},
		{"fractional pow2", 11, "    step_sizes: {pow2: [-4.5, -2]}", ":11:", `methods[0].step_sizes.pow2[0]: "-4.5" is not an integer`},
		{"repeated stage count", 7, "stages: [2, 4, 2]", ":7:", "stages[2]: 2 is given twice (items 1 and 3)"},
		{"repeated microbatches", 8, "total_microbatches: [20, 20]", ":8:", "total_microbatches[1]: 20 is given twice"},
		{"repeated objective", 3, "objectives: [quadratic, quadratic]", ":3:", "objectives[1]: quadratic is given twice"},
		{"repeated step size", 14, "    step_sizes: {values: [0.1, 0.1]}", ":14:", "methods[1].step_sizes.values[1]: 0.1 is given twice"},
		{"repeated delta", 13, "    deltas: [paper, 8, paper]", ":13:", "methods[1].deltas[2]: paper is given twice"},
		{"repeated method", 0, "  - {name: pipedream, step_sizes: {values: [0.125]}}", ":15:", "methods[2].name: pipedream with optimizer sgd is given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
			if tc.line == 0 {
				lines = append(lines, tc.text)
			} else {
				lines[tc.line-1] = tc.text
			}
			_, err := ParseSpec("s.yaml", []byte(strings.Join(lines, "\n")))
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "s.yaml"+tc.wantLine) || !strings.Contains(msg, tc.wantKey) {
				t.Errorf("error %q, want s.yaml%s and %q", msg, tc.wantLine, tc.wantKey)
			}
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("error %q is not bad input (exit status 2)", err)
			}
		})
	}
}

// TestParseSpecTakesWholeNumbers: the checks refuse no integer a spec may
// give, in any of YAML's integer spellings.
func TestParseSpecTakesWholeNumbers(t *testing.T) {
	src := strings.Replace(base, "seed: 1", "seed: 18446744073709551615", 1)
	src = strings.Replace(src, "n: 40", "n: 0x28", 1)
	s, err := ParseSpec("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != 1<<64-1 || s.N != 40 {
		t.Errorf("seed %d, n %d; want 2^64-1 and 40", s.Seed, s.N)
	}
}

// TestPlotRefusesAnUnsafeExperimentName: tables that name an experiment
// "../escaped" (written by hand, or by a build before the spec check) are
// not plotted, rather than plotted outside the folder.
func TestPlotRefusesAnUnsafeExperimentName(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	os.Mkdir(dir, 0o755)
	_, err := plotTables(dir, &results.Tables{Runs: []results.Run{{Experiment: "../escaped", CostModel: "unit", Method: "pipedream", Stages: 2}}})
	if err == nil || !strings.Contains(err.Error(), `"../escaped"`) {
		t.Errorf("plot = %v, want a refusal naming the experiment", err)
	}
	if escaped, _ := filepath.Glob(filepath.Join(parent, "escaped*")); len(escaped) > 0 {
		t.Errorf("plot wrote %v outside its folder", escaped)
	}
}
