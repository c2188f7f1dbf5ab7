package experiments

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A renamed spec key is accepted under its old name for one release
// (docs/cli.md): ParseSpec rewrites the old key in the source, so that the
// strict decoder and the validator's line numbers see the current name at
// the same line, and records a note for the command to print.

// specRename is one renamed key: old and current in the mapping at
// section ("" for the top level, "cost", or "methods" for each method).
type specRename struct{ section, old, current string }

// specRenames are the keys renamed by issue 14 to the names of their flags.
var specRenames = []specRename{
	{"", "batch", "batch_size"},
	{"", "budget", "time_budget"},
	{"", "families", "kinds"},
	{"", "select", "selection_rule"},
	{"methods", "family", "kind"},
	{"methods", "steps", "step_sizes"},
	{"cost", "microbatch", "microbatch_size"},
	{"cost", "sequence", "seq_len"},
}

// renameOldKeys rewrites the old spellings of renamed keys in src to the
// current ones and returns the new source and one note per rewrite. A
// mapping holding both spellings of a key is an error.
func renameOldKeys(file string, src []byte, root *yaml.Node) ([]byte, []string, error) {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return src, nil, nil
	}
	top := root.Content[0]
	sections := map[string][]*yaml.Node{"": {top}}
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch k, v := top.Content[i].Value, top.Content[i+1]; {
		case k == "cost" && v.Kind == yaml.MappingNode:
			sections["cost"] = []*yaml.Node{v}
		case k == "methods" && v.Kind == yaml.SequenceNode:
			for _, m := range v.Content {
				if m.Kind == yaml.MappingNode {
					sections["methods"] = append(sections["methods"], m)
				}
			}
		}
	}
	var todo []pendingRename
	for _, r := range specRenames {
		for _, m := range sections[r.section] {
			todo = append(todo, pendingRename{specRename: r, m: m})
		}
	}
	todo = append(todo, reusedNameRenames(top, sections["cost"])...)
	lines := strings.SplitAfter(string(src), "\n")
	var edits []keyEdit
	for _, r := range todo {
		old, current := mappingKey(r.m, r.old), mappingKey(r.m, r.current)
		if old == nil {
			continue
		}
		key := r.old
		if r.section != "" {
			key = r.section + "." + r.old
		}
		if current != nil && !renamedAway(todo, r.m, r.current) {
			return nil, nil, &SpecError{File: file, Line: old.Line, Key: key,
				Msg: fmt.Sprintf("is the old spelling of %s, which is given too at line %d: drop %s", r.current, current.Line, r.old)}
		}
		if !keyAt(lines, old, r.old) {
			continue // not a plain key: the strict decoder names it
		}
		what, use := "key "+key, r.current
		if r.meaning != "" {
			value := mappingValue(r.m, r.old).Value
			what, use = fmt.Sprintf("key %s: %s", key, value), fmt.Sprintf("%s: %s%s", r.current, value, r.meaning)
		}
		edits = append(edits, keyEdit{k: old, old: r.old, current: r.current,
			note: fmt.Sprintf("%s:%d: %s is deprecated; use %s (accepted until the next release)", file, old.Line, what, use)})
	}
	// Rewrite right to left, so that a rewrite does not move the columns
	// of the keys still to be rewritten on its line (a flow mapping such
	// as {name: pd, family: 1f1b, steps: ...} holds several).
	slices.SortFunc(edits, func(a, b keyEdit) int {
		return cmp.Or(cmp.Compare(a.k.Line, b.k.Line), cmp.Compare(b.k.Column, a.k.Column))
	})
	for _, e := range edits {
		rewriteKey(lines, e.k, e.old, e.current)
	}
	// The notes in the order of the spec: by line, on a line by column.
	slices.SortFunc(edits, func(a, b keyEdit) int {
		return cmp.Or(cmp.Compare(a.k.Line, b.k.Line), cmp.Compare(a.k.Column, b.k.Column))
	})
	var notes []string
	for _, e := range edits {
		notes = append(notes, e.note)
	}
	return []byte(strings.Join(lines, "")), notes, nil
}

// pendingRename is a rename to try on one mapping m; meaning, for a key
// whose old name is now another concept's, says so in the note.
type pendingRename struct {
	specRename
	m       *yaml.Node
	meaning string
}

// renamedAway reports whether todo renames key name of mapping m to
// another name, so that name given as a current spelling is no clash.
func renamedAway(todo []pendingRename, m *yaml.Node, name string) bool {
	return slices.ContainsFunc(todo, func(r pendingRename) bool { return r.m == m && r.old == name })
}

// reusedNameRenames returns the renames of issue 14 whose old key is now
// the name of another concept, so that whether a key is old depends on
// the spec (docs/cli.md, "Reused names"):
//   - At the top level, experiment was the measure and name the spec's
//     name, now experiment. A spec with a name key is old: its name is
//     the experiment, its experiment (if any) the measure. A spec with
//     neither name nor measure whose experiment is a measure's name
//     (convergence, delays, ...) is old too: its experiment is the
//     measure. Otherwise experiment is the spec's name. A spec named
//     like a measure therefore gives its measure key.
//   - In cost, model was the cost model and preset the model preset, now
//     model. cost.model holding a cost model's name (unit, gpu; no model
//     preset is named so) is the old cost_model; cost.preset is the old
//     model.
func reusedNameRenames(top *yaml.Node, cost []*yaml.Node) []pendingRename {
	var out []pendingRename
	name, exp, measure := mappingKey(top, "name"), mappingValue(top, "experiment"), mappingKey(top, "measure")
	if measure == nil && exp != nil && (name != nil || slices.Contains(knownMeasures, exp.Value)) {
		out = append(out, pendingRename{specRename: specRename{"", "experiment", "measure"}, m: top,
			meaning: " (experiment now names the spec, as the tables' experiment column)"})
	}
	out = append(out, pendingRename{specRename: specRename{"", "name", "experiment"}, m: top})
	for _, c := range cost {
		if model := mappingValue(c, "model"); model != nil && slices.Contains(knownCostModels, model.Value) {
			out = append(out, pendingRename{specRename: specRename{"cost", "model", "cost_model"}, m: c,
				meaning: " (cost.model now names the model preset, as --model)"})
		}
		out = append(out, pendingRename{specRename: specRename{"cost", "preset", "model"}, m: c})
	}
	return out
}

// mappingValue returns the value node of key name in mapping m, or nil.
func mappingValue(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

// mappingKey returns the key node named name in mapping m, or nil.
func mappingKey(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i]
		}
	}
	return nil
}

// keyEdit is one rename to apply: the key node, its old and current
// name, and the note it gives.
type keyEdit struct {
	k                  *yaml.Node
	old, current, note string
}

// keyAt reports whether the plain key old stands at k's line and column.
func keyAt(lines []string, k *yaml.Node, old string) bool {
	if k.Style != 0 || k.Line < 1 || k.Line > len(lines) {
		return false
	}
	line := []rune(lines[k.Line-1])
	col := k.Column - 1
	return col >= 0 && col+len(old) <= len(line) && string(line[col:col+len(old)]) == old
}

// rewriteKey replaces the plain key old at k's line and column (keyAt)
// with current.
func rewriteKey(lines []string, k *yaml.Node, old, current string) {
	line := []rune(lines[k.Line-1])
	col := k.Column - 1
	lines[k.Line-1] = string(line[:col]) + current + string(line[col+len(old):])
}

// specValueRename is one renamed value: old and current of the values of
// key, "objectives" or "methods[].name".
type specValueRename struct{ key, old, current string }

// specValueRenames are the values issue 14 renamed: the command line's lm
// and pd are the objective charlm and the method pipedream, as the tables
// write them (docs/cli.md).
var specValueRenames = []specValueRename{
	{"objectives", "lm", "charlm"},
	{"methods[].name", "pd", "pipedream"},
}

// renameOldValues sets the old spellings of renamed values in s to the
// current ones, with one note each in s.Deprecated naming file and line.
func (s *Spec) renameOldValues(file string, root *yaml.Node) {
	v := validator{root: root}
	note := func(key string, line int, r specValueRename) {
		s.Deprecated = append(s.Deprecated, fmt.Sprintf("%s:%d: value %s of %s is deprecated; use %s (accepted until the next release)",
			file, line, r.old, key, r.current))
	}
	for _, r := range specValueRenames {
		switch r.key {
		case "objectives":
			for i, o := range s.Objectives {
				if o == r.old {
					s.Objectives[i] = r.current
					note(fmt.Sprintf("objectives[%d]", i), v.line("objectives", i), r)
				}
			}
		case "methods[].name":
			for i := range s.Methods {
				if s.Methods[i].Name == r.old {
					s.Methods[i].Name = r.current
					note(fmt.Sprintf("methods[%d].name", i), v.line("methods", i, "name"), r)
				}
			}
		}
	}
}
