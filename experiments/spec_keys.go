package experiments

import (
	"reflect"
	"strings"

	"github.com/pipelab/pipelab/internal/suggest"
)

// Did-you-mean for spec keys: an unknown key is answered with the key it
// was renamed to, when it is an earlier spelling (docs/cli.md, the concept
// table's last column), or else with the closest key of its level by edit
// distance (suggest.Closest, the command line's rule for flags).

// keyLevels are the types a spec's levels decode into, by the name
// yaml.v3's "field not found in type" error gives them: the top level,
// a method, its optimizer, its step-size grid and the cost section.
var keyLevels = func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, t := range []reflect.Type{reflect.TypeFor[Spec](), reflect.TypeFor[MethodSpec](), reflect.TypeFor[optimizerFields](),
		reflect.TypeFor[Grid](), reflect.TypeFor[CostSpec]()} {
		out[t.String()] = t
	}
	return out
}()

// renamedKey is the key an earlier spelling became and, where the
// meaning moved with the name, why.
type renamedKey struct{ key, why string }

// renamedKeys are the earlier spellings of each level's keys. Nothing was
// released under them, so they are refused, each naming its key.
var renamedKeys = map[reflect.Type]map[string]renamedKey{
	reflect.TypeFor[Spec](): {
		"name":     {key: "experiment"},
		"batch":    {key: "batch_size"},
		"budget":   {key: "time_budget"},
		"select":   {key: "selection_rule"},
		"families": {key: "kinds"},
		"microbatches_per_stage": {key: "total_microbatches_per_stage",
			why: "N = k·S microbatches over a run; microbatches alone is the M of one iteration"},
	},
	reflect.TypeFor[MethodSpec](): {
		"steps":  {key: "step_sizes"},
		"family": {key: "kind"},
		"microbatches_per_iteration": {key: "microbatches",
			why: "sync's microbatches M of one iteration, as train's --microbatches"},
	},
	reflect.TypeFor[CostSpec](): {
		"microbatch": {key: "microbatch_size"},
		"sequence":   {key: "seq_len"},
		"preset":     {key: "model"},
	},
}

// unknownKeyHint is " (did you mean KEY?)" for an unknown key of the
// level yaml.v3 names typeName, or "" when no key is near.
func unknownKeyHint(typeName, key string) string {
	t, ok := keyLevels[typeName]
	if !ok {
		return ""
	}
	if r, ok := renamedKeys[t][key]; ok {
		return didYouMean(r.key, r.why)
	}
	if near := suggest.Closest(key, keysOf(t)); near != "" {
		return didYouMean(near, "")
	}
	return ""
}

// didYouMean words a suggestion, with why when the meaning needs saying.
func didYouMean(key, why string) string {
	if why != "" {
		return " (did you mean " + key + "? " + why + ")"
	}
	return " (did you mean " + key + "?)"
}

// keysOf lists the keys of a level: the yaml tags of t's fields.
func keysOf(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" && f.IsExported() {
			keys = append(keys, name)
		}
	}
	return keys
}
