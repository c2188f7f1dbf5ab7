package main

import (
	"github.com/pipelab/pipelab/request/train"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/request"
)

// flagUsage returns the usage text "pipelab name --help" prints under
// --flag.
func flagUsage(t *testing.T, name, flag string) string {
	t.Helper()
	_, help, _ := runCLI(name, "--help")
	m := regexp.MustCompile(`(?m)^  --` + flag + `( \S+)?\n      (.*)$`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("pipelab %s --help has no --%s", name, flag)
	}
	return m[2]
}

// listedValues reads the values a usage lists, "a, b, c or d" (before any
// "(" or ":"), in order.
func listedValues(usage string) []string {
	usage, _, _ = strings.Cut(usage, "(")
	if _, after, ok := strings.Cut(usage, ": "); ok {
		usage = after
	}
	var out []string
	for _, w := range regexp.MustCompile(`[a-z0-9][a-z0-9-]*`).FindAllString(usage, -1) {
		if w != "or" && w != "and" {
			out = append(out, w)
		}
	}
	return out
}

// synopsisValues reads the values "--flag a|b|c" of a synopsis.
func synopsisValues(synopsis, flag string) []string {
	m := regexp.MustCompile(`--` + flag + ` ([a-z0-9|-]+)`).FindStringSubmatch(synopsis)
	if m == nil {
		return nil
	}
	return strings.Split(m[1], "|")
}

// resultsValues reads the backquoted values docs/results.md gives in the
// meaning of column of table.
func resultsValues(t *testing.T, table, column string) []string {
	t.Helper()
	src, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "\n## "+table+" (")
	if !ok {
		t.Fatalf("docs/results.md has no table %s", table)
	}
	m := regexp.MustCompile(`(?m)^\| ` + column + ` \| [^|]+ \| ([^\n]*)\|$`).FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("docs/results.md: table %s has no column %s", table, column)
	}
	var out []string
	for _, v := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(m[1], -1) {
		out = append(out, v[1])
	}
	return out
}

// checkValues fails unless every list of values of one concept holds the
// same values as the reference list ref, named refName (the order aside).
func checkValues(t *testing.T, concept, refName string, ref []string, others map[string][]string) {
	t.Helper()
	want := slices.Sorted(slices.Values(ref))
	for where, got := range others {
		if got = slices.Sorted(slices.Values(got)); !slices.Equal(got, want) {
			t.Errorf("%s: %s lists %v, %s %v", concept, where, got, refName, want)
		}
	}
}

// testOneValuePerConcept is TestOneNamePerConcept's part for values: the
// objectives, methods and schedule families the command line takes (its
// help and checks), the specs take and the tables write are the same
// names.
func testOneValuePerConcept(t *testing.T, rows []conceptRow) {
	checkValues(t, "objective", "the specs", experiments.KnownObjectives, map[string][]string{
		"train --help's --objective":       listedValues(flagUsage(t, "train", "objective")),
		"train's synopsis":                 synopsisValues(train.Synopsis, "objective"),
		"train's check":                    train.Objectives,
		"docs/results.md's runs.objective": resultsValues(t, "runs", "objective"),
	})
	checkValues(t, "method", "the specs", experiments.KnownMethods, map[string][]string{
		"train --help's --method":       listedValues(flagUsage(t, "train", "method")),
		"train's synopsis":              synopsisValues(train.Synopsis, "method"),
		"train's check":                 train.Methods,
		"docs/results.md's runs.method": resultsValues(t, "runs", "method"),
	})
	_, kinds, _ := runCLI("kinds")
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(kinds), "\n") {
		listed = append(listed, strings.Fields(line)[0])
	}
	checkValues(t, "schedule family", "--kind", request.FamilyNames(), map[string][]string{
		"pipelab kinds": listed,
		// The specs' families and zb-auto, which only the command line
		// builds (from costs).
		"the specs' kinds": append(experiments.ScheduleKinds(), "zb-auto"),
	})
}

// testFormats checks docs/cli.md's "Output formats" table against the
// --format of every command: each format a help lists is in the table,
// and the table's commands of each format are those whose help lists it.
func testFormats(t *testing.T) {
	src, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(src), "\n## Output formats\n")
	section, _, _ = strings.Cut(section, "\n## ")
	documented := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)` \\|[^|]+\\| ([^\\n]+) \\|$").FindAllStringSubmatch(section, -1) {
		for _, c := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(m[2], -1) {
			documented[m[1]] = append(documented[m[1]], c[1])
		}
	}
	if len(documented) == 0 {
		t.Fatal(`docs/cli.md has no "Output formats" table`)
	}
	live := map[string][]string{}
	for _, name := range commandNames() {
		if !slices.Contains(helpFlags(t, name), "--format") {
			continue
		}
		for _, f := range listedValues(flagUsage(t, name, "format")) {
			if _, ok := request.FormatMeanings[f]; !ok {
				t.Errorf("pipelab %s --format %s: a format with no meaning in format.go", name, f)
			}
			live[f] = append(live[f], name)
		}
	}
	for f := range request.FormatMeanings {
		checkValues(t, "--format "+f, "docs/cli.md", documented[f], map[string][]string{"the commands whose help lists it": live[f]})
	}
	for f := range documented {
		if _, ok := request.FormatMeanings[f]; !ok {
			t.Errorf("docs/cli.md lists the format %s, which no command writes", f)
		}
	}
}
