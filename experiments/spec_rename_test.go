package experiments

import (
	"reflect"
	"strings"
	"testing"
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
	cost := "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2]\nmicrobatches: [4]\nmethods: [{name: pipedream, step_sizes: {values: [0.05]}}]\ncost:\n  model: gpu\n  preset: gpt-1.3b\n  microbatch: 2\n  sequence: 512\n"
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
