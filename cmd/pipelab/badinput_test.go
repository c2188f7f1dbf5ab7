package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// repoPackages returns the names of the directories of the module that
// hold Go files, but cmd/pipelab's ("pipelab", the program's name, which
// starts every message as "pipelab CMD: ").
func repoPackages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != "../.." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			if dir := filepath.Base(filepath.Dir(path)); dir != "pipelab" && dir != ".." {
				seen[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestGoPackagesListed: goPackages, the prefixes userText drops, are the
// module's package directories, so that a new package's prefix cannot
// reach a user.
func TestGoPackagesListed(t *testing.T) {
	got := slices.Clone(request.GoPackages)
	sort.Strings(got)
	want := repoPackages(t)
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("package directory %s is not in goPackages", p)
		}
	}
}

// TestBadInputsInTheUsersWords drives 40 bad inputs, flags and values
// alike, through the command line: each must exit 2 with one line on
// standard error that starts "pipelab" and whose message (after "pipelab
// CMD: ") starts with no Go package's name and a colon, nor holds one
// after a colon.
func TestBadInputsInTheUsersWords(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badCSV := write("bad.csv", "0F0,,0B0\n,1B0\n")
	badSpec := write("bad.yaml", "experiment: t\nmeasure: nope\n")
	emptySpec := write("empty.yaml", "")
	slow := write("slow.yaml", "gpu: {name: g, peak_flops: 312e12, memory_bytes: 80e9}\nlink: {name: l, latency: 3e-6, bandwidth: 50}\n")
	missing := filepath.Join(dir, "nodir", "x")
	cases := [][]string{
		{"simulat"},
		{"help", "simulat"},
		{"simulate", "--stags", "4"},
		{"simulate", "--kind", "1f1b"},
		{"simulate", "--kind", "1f1b", "--ranks", "4"},
		{"simulate", "--kind", "nope", "--ranks", "4", "--microbatches", "8"},
		{"simulate", "--kind", "interleaved-zb:x", "--ranks", "4", "--microbatches", "8"},
		{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--jitter", "50"},
		{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "nan", "--bwd", "1"},
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--straggler", "9:2"},
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--hardware", slow},
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--hardware", missing},
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--gantt", missing + ".png"},
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--trace", missing + ".json"},
		{"simulate", "--schedule", missing + ".csv"},
		{"simulate", "--kind", "pipedream", "--ranks", "4", "--microbatches", "8"},
		{"simulate", "--kind", "zb-v", "--ranks", "3", "--microbatches", "2", "--model", "gpt-9b"},
		{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--costs", missing + ".csv"},
		{"schedule", "--kind", "dualpipev", "--ranks", "3", "--microbatches", "5"},
		{"schedule", "--kind", "1f1b", "--ranks", "100000", "--microbatches", "100000", "--max-memory", "1G"},
		{"schedule", "--kind", "1f1b", "--ranks", "x", "--microbatches", "2"},
		{"schedule", "--kind", "1f1b", "--ranks", "2", "--total-microbatches", "4"},
		{"compare", "--ranks", "4"},
		{"compare", "--ranks", "4", "--microbatches", "8", "--kind", "1f1b,zz"},
		{"compare", "--ranks", "4", "--microbatches", "8", "--cost-model", "lockstep"},
		{"tune", "--model", "gpt-1.3b"},
		{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--out", missing + ".csv"},
		{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--gpu-memory", "lots"},
		{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "2", "--kind", "1f1b", "--gpu-memory", "1GiB"},
		{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--kind", "1f1b:x"},
		{"delays", "--kind", "nope", "--ranks", "4"},
		{"delays", "--ranks", "0"},
		{"check", badCSV},
		{"check", missing + ".csv"},
		{"sweep", badSpec, "--out", filepath.Join(dir, "o1")},
		{"sweep", emptySpec, "--out", filepath.Join(dir, "o2")},
		{"sweep", missing + ".yaml", "--out", filepath.Join(dir, "o3")},
		{"train", "--objective", "quadratic", "--method", "pipedream", "--stages", "2"},
		{"train", "--objective", "nope", "--method", "pipedream", "--stages", "2", "--total-microbatches", "4"},
		{"train", "--objective", "charlm", "--method", "pipedream", "--stages", "3", "--corpus", missing + ".txt"},
		{"reproduce", "nofig", "--out", filepath.Join(dir, "o4")},
		{"plot", dir},
		{"presets", "--format", "csv"},
	}
	if len(cases) < 40 {
		t.Fatalf("%d cases, want at least 40", len(cases))
	}
	pkgs := repoPackages(t)
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		msg := errb.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, msg)
			continue
		}
		rest, ok := strings.CutPrefix(msg, "pipelab")
		if !ok {
			t.Errorf("%v: stderr %q does not start with pipelab", args, msg)
			continue
		}
		// Drop "CMD: " (or ": " of "pipelab: unknown command").
		if _, after, found := strings.Cut(rest, ": "); found {
			rest = after
		}
		for _, p := range pkgs {
			if strings.HasPrefix(rest, p+":") || strings.HasPrefix(msg, p+":") || strings.Contains(msg, ": "+p+": ") {
				t.Errorf("%v: the message starts with the package name %s: %q", args, p, msg)
			}
		}
	}
}

// TestDidYouMean: a typo of a command or a flag is answered with the
// name it was closest to (edit distance), a word far from every name with
// none.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulat"}, `unknown command "simulat" (did you mean simulate?)`},
		{[]string{"tuen"}, `(did you mean tune?)`},
		{[]string{"help", "comapre"}, `(did you mean compare?)`},
		{[]string{"simulate", "--rank", "4"}, "--rank (did you mean --ranks?)"},
		{[]string{"compare", "--microbatch", "4"}, "(did you mean --microbatches?)"},
		// The convention's neighbours, too far apart for an edit distance.
		{[]string{"simulate", "--stages", "4"}, "--stages (did you mean --ranks? --ranks is the pipeline ranks P"},
		{[]string{"train", "--ranks", "4"}, "--ranks (did you mean --stages? train's --stages is S"},
		{[]string{"train", "--step-sise", "0.1"}, "(did you mean --step-size?)"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if _, _, errs := runCLI("frobnicate"); strings.Contains(errs, "did you mean") {
		t.Errorf("frobnicate got a suggestion: %q", errs)
	}
}

// TestMissingOutputFolderFirst: tune --out into a folder that does not
// exist is refused before the search (no tuner output, exit 2), naming
// the folder, not a temporary file; simulate's --gantt likewise names
// the folder.
func TestMissingOutputFolderFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nodir")
	code, out, errs := runCLI("tune", "--model", "gpt-1.3b", "--ranks", "4", "--out", filepath.Join(dir, "x.csv"))
	if code != 2 || out != "" || !strings.Contains(errs, "folder "+dir+" does not exist") || strings.Contains(errs, ".tmp") {
		t.Errorf("tune --out: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCLI("simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--gantt", filepath.Join(dir, "g.png"))
	if code != 2 || !strings.Contains(errs, "folder "+dir+" does not exist") {
		t.Errorf("simulate --gantt: exit %d, stderr %q", code, errs)
	}
}

// TestRequiredFlagsNamed: a required count left out is named as
// required (issue 25: it read "must be at least 1, got 0"); a value given
// out of range still says the range.
func TestRequiredFlagsNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--kind", "1f1b", "--microbatches", "8"}, "--ranks is required"},
		{[]string{"simulate", "--kind", "pipedream", "--ranks", "4"}, "--total-microbatches is required"},
		{[]string{"compare", "--ranks", "4"}, "--microbatches is required"},
		{[]string{"tune", "--model", "gpt-1.3b"}, "--ranks is required"},
		{[]string{"delays"}, "--ranks is required"},
		{[]string{"train", "--objective", "quadratic", "--method", "pipedream", "--total-microbatches", "4"}, "--stages is required"},
		{[]string{"compare", "--ranks", "-1", "--microbatches", "4"}, "--ranks must be at least 1, got -1"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
