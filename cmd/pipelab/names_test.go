package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// conceptRow is one row of docs/cli.md's concept table.
type conceptRow struct {
	concept                         string
	flags, keys, columns, json, old []string
	line                            int
}

// readConceptTable parses the table under "## Concept table" in
// docs/cli.md: every backquoted spelling of each cell.
func readConceptTable(t *testing.T) []conceptRow {
	t.Helper()
	src, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	// An old column is written "column `name`", an old JSON key "JSON
	// `name`"; they stay "column name" and "JSON name".
	tick := regexp.MustCompile("(column |JSON )?`([^`]+)`")
	spellings := func(cell string) []string {
		var out []string
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			out = append(out, m[1]+m[2])
		}
		return out
	}
	var rows []conceptRow
	in := false
	for i, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Concept table"
			continue
		case !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| concept") || strings.HasPrefix(line, "| ---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 6 {
			t.Fatalf("docs/cli.md:%d: %d cells, want 6", i+1, len(cells))
		}
		rows = append(rows, conceptRow{concept: strings.TrimSpace(cells[0]), flags: spellings(cells[1]), keys: spellings(cells[2]),
			columns: spellings(cells[3]), json: spellings(cells[4]), old: spellings(cells[5]), line: i + 1})
	}
	if len(rows) < 20 {
		t.Fatalf("docs/cli.md's concept table has %d rows", len(rows))
	}
	return rows
}

// helpFlags lists the flags "pipelab name --help" shows.
func helpFlags(t *testing.T, name string) []string {
	t.Helper()
	code, out, _ := runCLI(name, "--help")
	if code != 0 {
		t.Fatalf("%s --help: exit %d", name, code)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, "--"+m[1])
	}
	return flags
}

// specKeys lists every key a spec may hold, as section paths
// ("methods[].optimizer.beta1"), from the yaml tags of experiments.Spec.
func specKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			keys = append(keys, prefix+name)
			ft := f.Type
			list := ""
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				if ft.Kind() == reflect.Slice {
					list = "[]"
				}
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, prefix+name+list+".")
			}
		}
	}
	walk(reflect.TypeFor[experiments.Spec](), "")
	return keys
}

// leaf is the name a spec key spells its concept with: its last segment,
// or for a list's or section's "name" the list or section
// (methods[].name is the method, methods[].optimizer.name the optimizer).
func leaf(key string) string {
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	if last == "name" && len(parts) > 1 {
		last = parts[len(parts)-2]
	}
	return strings.TrimSuffix(last, "[]")
}

// snake spells a flag as a key: --seq-len is seq_len.
func snake(flag string) string { return strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_") }

// sameName says whether key spells the concept of flag: the same words, or
// their plural for a spec list of values the flag gives one of.
func sameName(flag, key string) bool {
	s := snake(flag)
	return key == s || key == s+"s"
}

// commandOnlyFlags are flags that name nothing a spec or table holds, by
// command (docs/cli.md says so below its table).
var commandOnlyFlags = map[string][]string{
	"check":     {"--merge-iw", "--validate"},
	"merge":     {"--allow-partial", "--force"},
	"reproduce": {"--quick", "--print-spec"},
	"schedule":  {"--comms", "--noam", "--max-activations", "--fwd", "--bwd", "--wgrad", "--comm", "--costs", "--profile"},
	"simulate": {"--cap", "--comm-jitter", "--gantt", "--hint", "--iterations", "--jitter", "--partition", "--patience", "--policy",
		"--schedule", "--straggler", "--trace", "--max-activations", "--fwd", "--bwd", "--wgrad", "--comm", "--costs", "--profile"},
	"compare": {"--max-activations", "--fwd", "--bwd", "--wgrad", "--comm", "--costs", "--profile"},
	"sweep":   {"--shard", "--shards", "--print-spec"},
	"train":   {"--schedule", "--data", "--labels", "--noise", "--delays", "--fwd", "--bwd", "--wgrad", "--comm", "--costs", "--profile"},
	"tune":    {"--baseline-gantt", "--gantt", "--memory", "--costs", "--profile"},
}

// specOnlyKeys are spec keys that name no flag's concept: the spec's own
// structure and the cost section.
var specOnlyKeys = []string{"updates", "values", "pow2", "cost"}

// reusedOldSpellings are the old spec keys that are now another concept's
// current key (docs/cli.md, "Names that once meant something else"), by
// old key and the concept it was: the spec reader tells the two apart
// (experiments' TestSpecKeyDidYouMean for stages and microbatches). Any
// other old spelling still live fails.
var reusedOldSpellings = map[string]string{"experiment": "measure of a spec (convergence, delays, schedules, delay-profiles)", "cost.model": "cost model",
	"stages":       "pipeline ranks (devices) P; a rank holds V chunks",
	"microbatches": "total microbatches N over a run (pipedream, localsgd, train)"}

// TestOneNamePerConcept walks every subcommand's flags (as its --help shows
// them) and every spec key (the yaml tags of experiments.Spec) against
// docs/cli.md's concept table: each must be in the table; each spelling
// the table names must exist; a row's flag, key, column and JSON key must
// spell the same words; no spelling may name two concepts; no old
// spelling may still be a live flag or key; and a concept's values are
// spelled alike everywhere (testOneValuePerConcept).
func TestOneNamePerConcept(t *testing.T) {
	rows := readConceptTable(t)
	t.Run("values", func(t *testing.T) { testOneValuePerConcept(t, rows) })
	t.Run("formats", testFormats)
	tableFlags := map[string]int{}
	tableKeys := map[string]int{}
	owner := map[string]string{} // spelling -> concept, for every kind of name
	for _, r := range rows {
		for _, f := range r.flags {
			tableFlags[f] = r.line
		}
		for _, k := range r.keys {
			tableKeys[leaf(k)] = r.line
		}
		for kind, names := range map[string][]string{"flag": r.flags, "key": r.keys, "column": r.columns, "json": r.json} {
			for _, n := range names {
				if kind == "key" {
					n = leaf(n)
				}
				id := kind + " " + n
				if c, dup := owner[id]; dup && c != r.concept {
					t.Errorf("docs/cli.md:%d: %s %s names %q and %q", r.line, kind, n, c, r.concept)
				}
				owner[id] = r.concept
			}
		}
		// Every spelling of the row spells the flag's words.
		if len(r.flags) == 0 {
			continue
		}
		for i, k := range r.keys {
			f := r.flags[min(i, len(r.flags)-1)]
			if !sameName(f, leaf(k)) {
				t.Errorf("docs/cli.md:%d: %s is %s on the command line but %s in a spec", r.line, r.concept, f, k)
			}
		}
		for _, names := range [][]string{r.columns, r.json} {
			for i, c := range names {
				if f := r.flags[min(i, len(r.flags)-1)]; !sameName(f, c) {
					t.Errorf("docs/cli.md:%d: %s is %s on the command line but %s in a table or JSON", r.line, r.concept, f, c)
				}
			}
		}
	}

	live := map[string]bool{}
	for _, name := range commandNames() {
		for _, f := range helpFlags(t, name) {
			live[f] = true
			if _, ok := tableFlags[f]; !ok && !slices.Contains(commandOnlyFlags[name], f) {
				t.Errorf("pipelab %s %s is in no row of docs/cli.md's concept table", name, f)
			}
		}
	}
	for f, line := range tableFlags {
		if !live[f] {
			t.Errorf("docs/cli.md:%d: %s is no command's flag", line, f)
		}
	}
	liveKeys := map[string]bool{}
	for _, k := range specKeys() {
		liveKeys[leaf(k)] = true
		if _, ok := tableKeys[leaf(k)]; !ok && !slices.Contains(specOnlyKeys, leaf(k)) {
			t.Errorf("spec key %s is in no row of docs/cli.md's concept table", k)
		}
	}
	for k, line := range tableKeys {
		if !liveKeys[k] {
			t.Errorf("docs/cli.md:%d: %s is no spec key", line, k)
		}
	}
	// An old spelling is accepted but no longer a flag the help shows or a
	// key the spec type declares.
	for _, r := range rows {
		for _, o := range r.old {
			switch {
			case strings.HasPrefix(o, "--") && live[o]:
				t.Errorf("docs/cli.md:%d: old spelling %s of %s is still a live flag", r.line, o, r.concept)
			case strings.HasPrefix(o, "--") || strings.HasPrefix(o, "column ") || strings.HasPrefix(o, "JSON ") || !liveKeys[leaf(o)] || slices.Contains(r.keys, o):
			case reusedOldSpellings[o] != r.concept:
				t.Errorf("docs/cli.md:%d: old spelling %s of %s is still a spec key", r.line, o, r.concept)
			case owner["key "+leaf(o)] == "" || owner["key "+leaf(o)] == r.concept:
				t.Errorf("docs/cli.md:%d: old spelling %s of %s is live but no other concept's key", r.line, o, r.concept)
			}
		}
	}
}
