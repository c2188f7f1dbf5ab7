package experiments

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"pipelab/pipeline/cost"
)

// renamedSpec uses every renamed key in its current spelling; each case of
// TestSpecOldKeys spells one the old way.
const renamedSpec = `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
time_budget: [100]
methods:
  - {name: sync, kind: gpipe, step_sizes: {values: [0.05]}}
`

// TestSpecOldKeys: a spec spelling a renamed key the old way parses to
// the same Spec as the current spelling (so run ids do not change), with
// one note naming the file, the line and both names; both spellings at
// once are refused at the old key's line.
func TestSpecOldKeys(t *testing.T) {
	want, err := ParseSpec("s.yaml", []byte(renamedSpec))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Deprecated) != 0 {
		t.Fatalf("current spelling noted: %v", want.Deprecated)
	}
	for _, tc := range []struct{ current, old, note string }{
		{"batch_size: 4", "batch: 4", "s.yaml:4: key batch is deprecated; use batch_size (accepted until the next release)"},
		{"time_budget: [100]", "budget: [100]", "s.yaml:6: key budget is deprecated; use time_budget"},
		{"kind: gpipe", "family: gpipe", "s.yaml:8: key methods.family is deprecated; use kind"},
	} {
		got, err := ParseSpec("s.yaml", []byte(strings.Replace(renamedSpec, tc.current, tc.old, 1)))
		if err != nil {
			t.Errorf("%s: %v", tc.old, err)
			continue
		}
		if len(got.Deprecated) != 1 || !strings.HasPrefix(got.Deprecated[0], tc.note) {
			t.Errorf("%s: notes %q, want one starting %q", tc.old, got.Deprecated, tc.note)
		}
		got.Deprecated = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: spec %+v, want %+v", tc.old, got, want)
		}
		if a, b := ids(got.Expand()), ids(want.Expand()); len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: run ids %v, want %v", tc.old, a, b)
		}
	}
	both := strings.Replace(renamedSpec, "batch_size: 4\n", "batch_size: 4\nbatch: 4\n", 1)
	if _, err := ParseSpec("s.yaml", []byte(both)); err == nil || !strings.Contains(err.Error(), "s.yaml:5: batch: is the old spelling of batch_size, which is given too at line 4") {
		t.Errorf("both spellings: %v", err)
	}
	rule, err := ParseSpec("s.yaml", []byte(renamedSpec+"select: stable\n"))
	if err != nil || rule.Select != Stable || len(rule.Deprecated) != 1 || !strings.HasPrefix(rule.Deprecated[0], "s.yaml:9: key select is deprecated; use selection_rule") {
		t.Errorf("select: rule %q, notes %q, err %v", rule.Select, rule.Deprecated, err)
	}
	cost := "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2]\nmicrobatches: [4]\nmethods: [{name: pipedream, step_sizes: {values: [0.05]}}]\ncost:\n  cost_model: gpu\n  model: gpt-1.3b\n  microbatch: 2\n  sequence: 512\n"
	s, err := ParseSpec("s.yaml", []byte(cost))
	if err != nil || s.Cost.Microbatch != 2 || s.Cost.Sequence != 512 || len(s.Deprecated) != 2 {
		t.Errorf("cost.microbatch and cost.sequence: %+v, notes %q, err %v", s, s.Deprecated, err)
	}
}

// TestSpecOldValues: the command line's old values lm and pd in a spec
// read as charlm and pipedream, the names the tables write, with a note
// naming the file, the line, the key and both values, and the same run ids.
func TestSpecOldValues(t *testing.T) {
	const current = "objectives: [charlm]\nstages: [3]\nmicrobatches: [2]\nbatch_size: 2\ncorpus: markov\nn: 3000\nmethods:\n  - {name: pipedream, step_sizes: {values: [0.05]}}\n"
	want, err := ParseSpec("s.yaml", []byte(current))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.NewReplacer("[charlm]", "[lm]", "name: pipedream", "name: pd").Replace(current)
	got, err := ParseSpec("s.yaml", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	notes := []string{
		"s.yaml:1: value lm of objectives[0] is deprecated; use charlm (accepted until the next release)",
		"s.yaml:8: value pd of methods[0].name is deprecated; use pipedream (accepted until the next release)",
	}
	if !reflect.DeepEqual(got.Deprecated, notes) {
		t.Errorf("notes %q, want %q", got.Deprecated, notes)
	}
	got.Deprecated = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spec %+v, want %+v", got, want)
	}
	if a, b := ids(got.Expand()), ids(want.Expand()); len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("run ids %v, want %v", a, b)
	}
}

// reusedSpec is a spec in the current spelling of the keys whose old names
// are now other concepts' (experiment, cost.model); each case of
// TestSpecReusedNames spells it another way.
const reusedSpec = `experiment: tiny
measure: convergence
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
microbatches: [4]
methods: [{name: pipedream, step_sizes: {values: [0.05]}}]
cost:
  cost_model: gpu
  model: llama-7b
`

// TestSpecReusedNames: an old spec whose experiment was the measure, name
// the experiment, cost.model the cost model and cost.preset the model
// preset reads as the current spelling (the same Spec, so the same run
// ids), with one note per old key in the order of the lines; the dispatch
// is by the keys present (name, measure) and, without either, by
// experiment's value; both spellings of one key are refused at the old
// key's line, naming both.
func TestSpecReusedNames(t *testing.T) {
	want, err := ParseSpec("s.yaml", []byte(reusedSpec))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Deprecated) != 0 || want.Name != "tiny" || want.Measure != Convergence || want.Cost.CostModel != "gpu" || want.Cost.Preset != "llama-7b" {
		t.Fatalf("current spelling: %+v", want)
	}
	const (
		measureNote = "s.yaml:2: key experiment: convergence is deprecated; use measure: convergence (experiment now names the spec"
		nameNote    = "s.yaml:1: key name is deprecated; use experiment (accepted until the next release)"
		costNote    = "s.yaml:11: key cost.model: gpu is deprecated; use cost_model: gpu (cost.model now names the model preset"
		presetNote  = "s.yaml:12: key cost.preset is deprecated; use model (accepted until the next release)"
	)
	old := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(reusedSpec) }
	for _, tc := range []struct {
		name, spec string
		notes      []string
		// unnamed: the old spec gave no name, so the experiment is empty.
		unnamed bool
	}{
		{"old spec with name and experiment", old("experiment: tiny", "name: tiny", "measure: convergence", "experiment: convergence"),
			[]string{nameNote, measureNote}, false},
		{"old spec with name only", old("experiment: tiny", "name: tiny"), []string{nameNote}, false},
		{"old spec without name: experiment is a measure", old("experiment: tiny\n", "", "measure: convergence", "experiment: convergence"),
			[]string{strings.Replace(measureNote, ":2:", ":1:", 1)}, true},
		{"old cost section", old("cost_model: gpu", "model: gpu", "model: llama-7b", "preset: llama-7b"), []string{costNote, presetNote}, false},
		{"old cost section, preset first", old("cost_model: gpu\n  model: llama-7b", "preset: llama-7b\n  model: gpu"),
			[]string{"s.yaml:11: key cost.preset is deprecated; use model", "s.yaml:12: key cost.model: gpu is deprecated; use cost_model: gpu"}, false},
		{"old everything", old("experiment: tiny", "name: tiny", "measure: convergence", "experiment: convergence", "cost_model: gpu", "model: gpu", "model: llama-7b", "preset: llama-7b"),
			[]string{nameNote, measureNote, costNote, presetNote}, false},
	} {
		got, err := ParseSpec("s.yaml", []byte(tc.spec))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got.Deprecated) != len(tc.notes) {
			t.Errorf("%s: notes %q, want %d", tc.name, got.Deprecated, len(tc.notes))
			continue
		}
		for i, n := range tc.notes {
			if !strings.HasPrefix(got.Deprecated[i], n) || !strings.HasSuffix(got.Deprecated[i], "(accepted until the next release)") {
				t.Errorf("%s: note %d %q, want it to start %q", tc.name, i, got.Deprecated[i], n)
			}
		}
		got.Deprecated = nil
		w := *want
		if tc.unnamed {
			w.Name = ""
		}
		if !reflect.DeepEqual(got, &w) {
			t.Errorf("%s: spec %+v, want %+v", tc.name, got, &w)
		}
		if a, b := ids(got.Expand()), ids(w.Expand()); len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: run ids %v, want %v", tc.name, a, b)
		}
	}
	// Current spellings read as such, whatever experiment's value.
	for _, tc := range []struct{ name, spec, experiment, measure string }{
		{"experiment not a measure, no measure key", old("measure: convergence\n", ""), "tiny", Convergence},
		{"spec named like a measure, with its measure", old("experiment: tiny", "experiment: delays"), "delays", Convergence},
	} {
		got, err := ParseSpec("s.yaml", []byte(tc.spec))
		if err != nil || len(got.Deprecated) != 0 || got.Name != tc.experiment || got.Measure != tc.measure {
			t.Errorf("%s: %+v, err %v", tc.name, got, err)
		}
	}
	for _, tc := range []struct{ name, spec, want string }{
		{"name beside experiment and measure", "name: tiny\n" + reusedSpec,
			"s.yaml:1: name: is the old spelling of experiment, which is given too at line 2: drop name"},
		{"cost.model naming a cost model beside cost_model", old("model: llama-7b", "model: gpu"),
			"s.yaml:12: cost.model: is the old spelling of cost_model, which is given too at line 11: drop model"},
		{"cost.preset beside cost.model", old("model: llama-7b", "model: llama-7b\n  preset: llama-13b"),
			"s.yaml:13: cost.preset: is the old spelling of model, which is given too at line 12: drop preset"},
	} {
		_, err := ParseSpec("s.yaml", []byte(tc.spec))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestNoPresetNamedLikeACostModel: cost.model is read as the old cost
// model when its value is a cost model's name (reusedNameRenames), so the
// dispatch is unambiguous only while no model preset is named unit or gpu.
func TestNoPresetNamedLikeACostModel(t *testing.T) {
	for _, m := range cost.Networks() {
		if slices.Contains(knownCostModels, m.Name) {
			t.Errorf("model preset %q is named like a cost model: cost.model: %s would be ambiguous", m.Name, m.Name)
		}
	}
	if len(cost.Networks()) == 0 {
		t.Fatal("no model presets")
	}
}

// TestDocSpecsCurrentSpelling: the spec the docs show (docs/sweeps.md's
// yaml block, every key with a comment) spells no key the old way: reading
// it gives no deprecation note. (It lists alternatives, so it is not run.)
func TestDocSpecsCurrentSpelling(t *testing.T) {
	src, err := os.ReadFile("../docs/sweeps.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	var root yaml.Node
	if !ok || yaml.Unmarshal([]byte(block), &root) != nil || !strings.Contains(block, "stages:") {
		t.Fatalf("docs/sweeps.md has no yaml spec block")
	}
	if _, notes, err := renameOldKeys("docs/sweeps.md", []byte(block), &root); err != nil || len(notes) != 0 {
		t.Errorf("docs/sweeps.md's spec: notes %q, err %v", notes, err)
	}
}
