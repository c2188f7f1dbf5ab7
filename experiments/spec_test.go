package experiments

import (
	"errors"
	"strings"
	"testing"
)

// base is a valid spec; each malformed case below changes one line of it.
const base = `name: t
seed: 1
objectives: [quadratic]
n: 40
d: 8
batch: 4
stages: [2, 4]
microbatches: [20]
methods:
  - name: pipedream
    steps: {pow2: [-4, -2]}
  - name: rpd
    deltas: [8, paper]
    steps: {values: [0.1]}
`

func TestParseSpecRejects(t *testing.T) {
	// Each case replaces line `line` (1-based) of base, or appends when
	// line is 0 (the new key is then on line 15), and expects the error to name the key and this line.
	tests := []struct {
		name     string
		line     int
		text     string
		wantLine string
		wantKey  string
	}{
		{"unknown top-level key", 4, "nn: 40", ":4:", `unknown key "nn"`},
		{"unknown nested key", 11, "    step: {pow2: [-4, -2]}", ":11:", `unknown key "step"`},
		{"stages below 2", 7, "stages: [2, 1]", ":7:", "stages[1]"},
		{"empty pow2 grid", 11, "    steps: {pow2: [0, -2]}", ":11:", "methods[0].steps.pow2"},
		{"empty step grid", 11, "    steps: {}", ":11:", "methods[0].steps"},
		{"unknown objective", 3, "objectives: [quadratic, logstic]", ":3:", `objectives[1]: unknown objective "logstic"`},
		{"unknown method", 10, "  - name: pipedrem", ":10:", `methods[0].name: unknown method "pipedrem"`},
		{"negative delta", 13, "    deltas: [8, -1]", ":13:", "methods[1].deltas[1]"},
		{"bad delta word", 13, "    deltas: [8, huge]", ":13:", `delta "huge" is neither`},
		{"both sizes", 0, "budget: [100]", ":15:", "budget: set microbatches or budget"},
		{"batch over n", 6, "batch: 41", ":6:", "batch: batch 41 exceeds n = 40"},
		{"unknown cost model", 0, "cost: {model: tpu}", ":15:", `cost.model: unknown cost model "tpu"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
			if tc.line == 0 {
				lines = append(lines, tc.text) // line 15
			} else {
				lines[tc.line-1] = tc.text
			}
			_, err := ParseSpec("s.yaml", []byte(strings.Join(lines, "\n")))
			if err == nil {
				t.Fatal("accepted a malformed spec")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.wantLine) || !strings.Contains(msg, tc.wantKey) {
				t.Errorf("error %q does not name %q and %q", msg, tc.wantKey, tc.wantLine)
			}
		})
	}
}

func TestParseSpecValid(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	// Defaults filled by validation.
	if s.Experiment != Convergence || s.Seeds != 1 || s.Cost.Model != "unit" || s.Select != BestFinal {
		t.Errorf("defaults: experiment %q seeds %d cost %q select %q", s.Experiment, s.Seeds, s.Cost.Model, s.Select)
	}
	if _, err := ParseSpec("s.yaml", []byte("experiment: delays\nstages: [4]\nmethods: [{name: rpd}]\n")); err == nil ||
		!strings.Contains(err.Error(), "s.yaml:3: methods: does not apply to delays experiments") {
		t.Errorf("a delays spec with methods: %v", err)
	}
	var se *SpecError
	if _, err := ParseSpec("s.yaml", []byte("stages: [1]\n")); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("want a SpecError on line 1, got %v", err)
	}
}
