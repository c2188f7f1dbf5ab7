package experiments

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// safeName is the form of a name that becomes part of a file name (the
// experiment names the plots, DIR/EXPERIMENT-COST-*.png): letters, digits,
// '.', '_' and '-', not starting with '.' or '-', so that no name climbs
// out of a folder ("../x"), makes a folder of its own ("a/b") or hides.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$`)

// IsSafeName reports whether name may become part of a file name.
func IsSafeName(name string) bool { return safeName.MatchString(name) }

// checkName refuses an experiment name that is not a safe file name.
func (s *Spec) checkName(v validator) error {
	if s.Name == "" || IsSafeName(s.Name) {
		return nil
	}
	return v.fail(fmt.Sprintf("%s is not a usable name: it names files, so use letters, digits, '.', '_' and '-' only (at most 100, not starting with '.' or '-')", quoteShort(s.Name)), "experiment")
}

// quoteShort quotes a value for an error, cut to 40 characters.
func quoteShort(v string) string {
	if r := []rune(v); len(r) > 40 {
		return fmt.Sprintf("%q (%d characters)", string(r[:40])+"…", len(r))
	}
	return fmt.Sprintf("%q", v)
}

// checkIntegers refuses, before decoding, a value of an integer key that
// is not an integer (yaml.v3 would cut seed: 1.5 to 1) or does not fit
// the key's type (a 20-digit n, a negative seed), naming the key and its
// line. It walks the YAML tree alongside the Go type the tree decodes
// into.
func checkIntegers(v validator, n *yaml.Node, t reflect.Type, path []any) error {
	for n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Pointer:
		return checkIntegers(v, n, t.Elem(), path)
	case reflect.Int, reflect.Int64, reflect.Uint64:
		if n.Kind != yaml.ScalarNode {
			return nil // the decoder names what it wanted
		}
		if tag := n.ShortTag(); tag != "!!int" {
			if tag == "!!float" && !strings.ContainsAny(n.Value, ".eE") {
				return v.fail(fmt.Sprintf("%s is out of range", quoteShort(n.Value)), path...)
			}
			if tag == "!!float" {
				return v.fail(fmt.Sprintf("%s is not an integer", quoteShort(n.Value)), path...)
			}
			return nil
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return v.fail(fmt.Sprintf("%s is out of range", quoteShort(n.Value)), path...)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, c := range n.Content {
			if err := checkIntegers(v, c, t.Elem(), append(path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if f, ok := fieldOfKey(t, key); ok {
				if err := checkIntegers(v, n.Content[i+1], f.Type, append(path, key)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fieldOfKey finds the field of struct type t that the YAML key decodes
// into.
func fieldOfKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// checkDuplicates refuses a value given twice in one list (stages: [2, 2]),
// which would make two runs of one, naming the list, its line and the
// value; then, as a net for repeats across lists (two entries of one
// method with overlapping step sizes), any two runs that are one.
func (s *Spec) checkDuplicates(v validator) error {
	if err := firstRepeat(v, s.Stages, "stages"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Ranks, "ranks"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.TotalMicrobatches, "total_microbatches"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Microbatches, "microbatches"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Budget, "time_budget"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Noise, "noise"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Objectives, "objectives"); err != nil {
		return err
	}
	if err := firstRepeat(v, s.Families, "kinds"); err != nil {
		return err
	}
	for i, m := range s.Methods {
		if err := firstRepeat(v, m.Steps.Values, "methods", i, "step_sizes", "values"); err != nil {
			return err
		}
		if err := firstRepeat(v, m.Deltas, "methods", i, "deltas"); err != nil {
			return err
		}
		if err := firstRepeat(v, m.LocalSteps, "methods", i, "local_steps"); err != nil {
			return err
		}
	}
	seen := map[string]int{}
	for _, r := range s.Expand() {
		if first, dup := seen[r.ID]; dup {
			return v.fail(fmt.Sprintf("runs %d and %d of the sweep are one run (%s): a method or value is given twice", first+1, r.Index+1, r.Name), "methods")
		}
		seen[r.ID] = r.Index
	}
	return nil
}

// firstRepeat refuses the first value of xs (the list at path) that an
// earlier one repeats.
func firstRepeat[T comparable](v validator, xs []T, path ...any) error {
	for i, x := range xs {
		for j := range i {
			if xs[j] == x {
				return v.fail(fmt.Sprintf("%v is given twice (items %d and %d)", x, j+1, i+1), append(path, i)...)
			}
		}
	}
	return nil
}

// String writes the bound as a spec does.
func (d Delta) String() string {
	switch {
	case d.Paper:
		return "paper"
	case d.Model != "":
		return d.Model
	}
	return strconv.Itoa(d.Value)
}
