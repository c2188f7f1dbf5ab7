package experiments

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// base is a valid spec; each malformed case below changes one line of it.
const base = `experiment: t
seed: 1
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2, 4]
total_microbatches: [20]
methods:
  - name: pipedream
    step_sizes: {pow2: [-4, -2]}
  - name: rpd
    deltas: [8, paper]
    step_sizes: {values: [0.1]}
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
		{"empty pow2 grid", 11, "    step_sizes: {pow2: [0, -2]}", ":11:", "methods[0].step_sizes.pow2"},
		{"empty step grid", 11, "    step_sizes: {}", ":11:", "methods[0].step_sizes"},
		{"unknown objective", 3, "objectives: [quadratic, logstic]", ":3:", `objectives[1]: unknown objective "logstic"`},
		{"unknown method", 10, "  - name: pipedrem", ":10:", `methods[0].name: unknown method "pipedrem"`},
		{"negative delta", 13, "    deltas: [8, -1]", ":13:", "methods[1].deltas[1]"},
		{"bad delta word", 13, "    deltas: [8, huge]", ":13:", `delta "huge" is neither`},
		{"both sizes", 0, "time_budget: [100]", ":15:", "time_budget: set total_microbatches or time_budget"},
		{"batch over n", 6, "batch_size: 41", ":6:", "batch_size: batch_size 41 exceeds n = 40"},
		{"unknown cost model", 0, "cost: {cost_model: tpu}", ":15:", `cost.cost_model: unknown cost model "tpu"`},
		{"unknown model preset", 0, "cost: {model: tpu}", ":15:", `cost.model: cost: unknown model preset "tpu"`},
		{"noise on a tridiagonal", 3, "objectives: [tridiagonal]\nnoise: [0.5]", ":4:", "noise: applies to the logistic and quadratic objectives only"},
		{"negative noise", 0, "noise: [0, -1]", ":15:", "noise[1]: noise -1 is not a finite σ"},
		{"unknown cut", 0, "cut: longest", ":15:", `cut: unknown cut "longest"`},
		{"cut of a method without a timeline", 0, "cut: shortest", ":12:", "methods[1].name: a cut compares timelines"},
		{"flash attention in unit time", 0, "cost: {cost_model: unit, flash_attention: true}", ":15:", "cost.flash_attention: needs cost_model: gpu"},
		{"negative log points", 0, "log_points: -1", ":15:", "log_points: must not be negative"},
		{"log points beside log every", 1, "log_every: 5", ":15:", "log_points: given with log_every"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
			if tc.line == 0 {
				lines = append(lines, tc.text) // line 15
			} else {
				lines[tc.line-1] = tc.text
			}
			if tc.name == "log points beside log every" {
				lines = append(lines, "log_points: 10") // line 15
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

// flash_attention reaches the GPU model and the runs' names, and leaves the
// names of runs without it as they were.
func TestParseSpecFlashAttention(t *testing.T) {
	flash, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu, flash_attention: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ParseSpec("s.yaml", []byte(base+"cost: {cost_model: gpu}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := flash.Cost.label(), plain.Cost.label()+"/flash"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	if plain.Cost.label() != DefaultGPU.label() {
		t.Errorf("label without flash %q, want the default GPU's %q", plain.Cost.label(), DefaultGPU.label())
	}
	cfg, err := flash.Cost.GPUConfig()
	if err != nil || !cfg.FlashAttention {
		t.Errorf("GPU config %+v, %v: want FlashAttention", cfg, err)
	}
}

func TestParseSpecValid(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	// Defaults filled by validation.
	if s.Measure != Convergence || s.Seeds != 1 || s.Cost.CostModel != "unit" || s.Select != BestFinal {
		t.Errorf("defaults: measure %q seeds %d cost %q select %q", s.Measure, s.Seeds, s.Cost.CostModel, s.Select)
	}
	if _, err := ParseSpec("s.yaml", []byte("measure: delays\nstages: [4]\nmethods: [{name: rpd}]\n")); err == nil ||
		!strings.Contains(err.Error(), "s.yaml:3: methods: does not apply to measure delays") {
		t.Errorf("a delays spec with methods: %v", err)
	}
	var se *SpecError
	if _, err := ParseSpec("s.yaml", []byte("stages: [1]\n")); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("want a SpecError on line 1, got %v", err)
	}
}

// syncBase is a valid spec with a sync method; each case of
// TestParseSpecRejectsSync replaces some of its lines.
const syncBase = `objectives: [logistic]
n: 40
d: 8
batch_size: 4
stages: [4, 8]
time_budget: [100]
methods:
  - name: pipedream
    step_sizes: {values: [0.1]}
  - name: sync
    kind: 1f1b
    microbatches: 8
    step_sizes: {values: [0.1]}
`

func TestParseSpecRejectsSync(t *testing.T) {
	if _, err := ParseSpec("s.yaml", []byte(syncBase)); err != nil {
		t.Fatalf("the base spec: %v", err)
	}
	tests := []struct {
		name     string
		lines    map[int]string // 1-based line → replacement
		wantLine string
		wantMsg  []string
	}{
		{"misspelt key", map[int]string{12: "    microbatches_per_iter: 8"}, ":12:", []string{`unknown key "microbatches_per_iter"`}},
		{"unknown family", map[int]string{11: "    kind: 1f1c"}, ":11:",
			[]string{`methods[1].kind: sync cannot use schedule family "1f1c"`, "1f1b", "gpipe"}},
		{"not a flush schedule", map[int]string{11: "    kind: pipedream"}, ":11:",
			[]string{"methods[1].kind", `"pipedream"`}},
		{"several stages per rank", map[int]string{11: "    kind: interleaved-1f1b"}, ":11:",
			[]string{"methods[1].kind", `"interleaved-1f1b"`}},
		{"negative per iteration", map[int]string{12: "    microbatches: -2"}, ":12:",
			[]string{"methods[1].microbatches: -2 is below 1"}},
		{"per iteration not a number", map[int]string{12: "    microbatches: many"}, ":12:",
			[]string{"cannot unmarshal", "many"}},
		{"kind on localsgd", map[int]string{8: "  - {name: localsgd, local_steps: [2], kind: gpipe, step_sizes: {values: [0.1]}}", 9: ""}, ":8:",
			[]string{"methods[0].kind: only sync and the asynchronous methods take a schedule family"}},
		{"pipedream on several stages per rank", map[int]string{8: "  - {name: pipedream, kind: interleaved-1f1b, step_sizes: {values: [0.1]}}", 9: ""}, ":8:",
			[]string{"methods[0].kind: S = 4:", "one stage per rank"}},
		{"pipedream on replica averaging", map[int]string{8: "  - {name: pipedream, kind: localsgd, step_sizes: {values: [0.1]}}", 9: ""}, ":8:",
			[]string{"methods[0].kind: S = 4:", "only localsgd replays it"}},
		{"sync with two flushes", map[int]string{8: "  - {name: sync, kind: gpipe, optimizer: adam, step_sizes: {values: [0.2]}}", 9: ""}, ":10:",
			[]string{"methods[1].name: sync entries differ in kind or microbatches from methods[0] (line 8)"}},
		{"per iteration on localsgd", map[int]string{8: "  - {name: localsgd, local_steps: [2], microbatches: 4, step_sizes: {values: [0.1]}}", 9: ""}, ":8:",
			[]string{"methods[0].microbatches: only sync takes microbatches"}},
		{"sync twice", map[int]string{8: "  - {name: sync, kind: gpipe, step_sizes: {values: [0.2]}}", 9: ""}, ":10:",
			[]string{"methods[1].name: sync with optimizer sgd is given twice (first as methods[0], line 8)"}},
		{"deltas on sync", map[int]string{11: "    deltas: [8]"}, ":11:", []string{"methods[1].deltas: only rpd takes delay bounds"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(strings.TrimSuffix(syncBase, "\n"), "\n")
			for n, text := range tc.lines {
				lines[n-1] = text
			}
			_, err := ParseSpec("s.yaml", []byte(strings.Join(lines, "\n")))
			if err == nil {
				t.Fatal("accepted a malformed spec")
			}
			msg := err.Error()
			if !strings.Contains(msg, "s.yaml"+tc.wantLine) {
				t.Errorf("error %q is not on line %s", msg, tc.wantLine)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}

// TestSyncDefaults: a sync method without family or microbatches per
// iteration gets 1F1B and N = S, the latter per stage count at expansion.
func TestSyncDefaults(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte("objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2, 4]\ntotal_microbatches: [8]\nmethods:\n  - {name: sync, step_sizes: {values: [0.1]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Methods[0]; m.Family != DefaultFlush || m.Microbatches != 0 {
		t.Errorf("defaults: family %q, %d per iteration", m.Family, m.Microbatches)
	}
	for _, r := range s.Expand() {
		if r.Microbatches != r.Stages || r.Family != "1f1b" {
			t.Errorf("%s: %d per iteration on %d stages, family %q", r.Name, r.Microbatches, r.Stages, r.Family)
		}
	}
}

// TestEveryMeasureHasItsType: the measures messages name are those the
// steps dispatch to, and each is its own type.
func TestEveryMeasureHasItsType(t *testing.T) {
	if len(measures) != len(knownMeasures) {
		t.Errorf("%d measure types, %d known measures", len(measures), len(knownMeasures))
	}
	types := map[string]bool{}
	for _, name := range knownMeasures {
		m, ok := measures[name]
		if !ok {
			t.Errorf("measure %q has no type", name)
			continue
		}
		types[fmt.Sprintf("%T", m)] = true
	}
	if len(types) != len(knownMeasures) {
		t.Errorf("%d distinct types for %d measures", len(types), len(knownMeasures))
	}
}
