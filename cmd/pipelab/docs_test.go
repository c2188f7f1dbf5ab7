package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// docCommand is one command line shown in a code block of README.md or
// docs/*.md, with the output lines the block shows after it.
type docCommand struct {
	where  string // file:line
	line   string // the shell line, "$ " dropped, continuations joined
	output []string
	// setup marks a "$ " line of another program (isFileSetup) that
	// makes a later command's input: run, not checked.
	setup bool
}

// docsSkipped are the command lines the docs test does not run, by the
// start of the line, each with why: they run for minutes, serve until
// stopped, or read folders an earlier sweep wrote. Each is still parsed
// (parseOnly): its flags must be the command's. The list is kept small
// (TestDocsCommands asserts at most 6 entries, each used).
var docsSkipped = map[string]string{
	"pipelab reproduce": "runs every figure's sweeps (minutes)",
	"pipelab sweep":     "runs a spec's sweep (minutes), or reads a spec file the doc only shows",
	"pipelab serve":     "serves until stopped",
	"pipelab merge":     "reads shard folders an earlier sweep wrote",
	// TestTrainLMDefaults checks the run this line takes.
	"pipelab train --objective charlm --method sync --stages 4 --optimizer adam": "trains the LM's default 8,000 microbatches (about 25 s of CPU)",
}

// readDocCommands returns the pipelab command lines of the ```, ```sh,
// ```console and ```bash blocks of the docs. A line is a command when it
// starts with "pipelab " or "$ pipelab " and its second word is a command
// (an error line "pipelab X: ..." is output). Lines of a block after a
// command, up to the next command, are its output; a # comment line or
// an empty block shows none.
func readDocCommands(t *testing.T) []docCommand {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	fence := regexp.MustCompile("^\\s*```\\s*(\\w*)")
	var cmds []docCommand
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		in, shell := false, false
		var cur *docCommand
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if m := fence.FindStringSubmatch(l); m != nil {
				if !in {
					in, shell = true, m[1] == "" || m[1] == "sh" || m[1] == "console" || m[1] == "bash" || m[1] == "shell"
				} else {
					in, cur = false, nil
				}
				continue
			}
			if !in || !shell {
				continue
			}
			text := strings.TrimSpace(l)
			prompt := strings.HasPrefix(text, "$ ")
			text = strings.TrimPrefix(text, "$ ")
			if prompt && !isDocCommand(text) && isFileSetup(text) {
				cmds = append(cmds, docCommand{where: strings.TrimPrefix(f, "../../") + ":" + strconv.Itoa(i+1), line: text, setup: true})
				cur = nil
				continue
			}
			if isDocCommand(text) {
				start := i
				for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
					i++
					text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
				}
				cmds = append(cmds, docCommand{where: strings.TrimPrefix(f, "../../") + ":" + strconv.Itoa(start+1), line: text})
				cur = &cmds[len(cmds)-1]
				continue
			}
			if cur != nil && text != "" && !strings.HasPrefix(text, "#") {
				cur.output = append(cur.output, text)
			}
		}
	}
	return cmds
}

// isFileSetup reports whether a shell line of another program writes a
// small input file (printf or echo into FILE) for a later command line;
// other programs' lines (go build, timeout, sha256sum) are not run.
func isFileSetup(text string) bool {
	return (strings.HasPrefix(text, "printf ") || strings.HasPrefix(text, "echo ")) && strings.Contains(text, " > ")
}

// isDocCommand reports whether text is a pipelab command line rather than
// an error line of its output.
func isDocCommand(text string) bool {
	if strings.Contains(text, "[--") {
		return false // a synopsis, not a command line
	}
	if _, piped, ok := strings.Cut(text, "| pipelab "); ok && !strings.HasPrefix(text, "pipelab ") {
		text = "pipelab " + piped // printf ... | pipelab check -
	}
	rest, ok := strings.CutPrefix(text, "pipelab ")
	if !ok {
		return false
	}
	word, _, _ := strings.Cut(rest, " ")
	_, known := commands[word]
	return known || strings.HasPrefix(word, "-")
}

// TestDocsCommands runs every command line of README.md and docs/*.md
// against the built binary, in a folder where the repository's examples
// and test data are at their paths, and checks the output the doc shows:
// each shown line must appear in the command's output (standard output
// and error), in order, spaces aside; "..." skips. A command line in
// docsSkipped is parsed only.
func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the docs' commands")
	}
	if len(docsSkipped) > 6 {
		t.Fatalf("%d kinds of command line skipped; keep the list small", len(docsSkipped))
	}
	cmds := readDocCommands(t)
	if len(cmds) < 30 {
		t.Fatalf("found %d command lines in the docs, expected the README's and docs' dozens", len(cmds))
	}
	bin := filepath.Dir(buildPipelab(t))
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	dirs := map[string]string{} // doc file -> the folder its commands run in, in order
	for _, c := range cmds {
		if prefix := skippedPrefix(c.line); prefix != "" && !c.setup {
			used[prefix] = true
			checkParses(t, c)
			continue
		}
		file, _, _ := strings.Cut(c.where, ":")
		dir, ok := dirs[file]
		if !ok {
			dir = t.TempDir()
			dirs[file] = dir
			// The inputs at their paths, read only; docs/img is the
			// commands' own, so that a doc's --gantt docs/img/... writes
			// no file of the repository.
			for _, d := range []string{"examples", "pipeline", "experiments"} {
				if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, "docs", "img"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		sh := exec.Command("sh", "-c", c.line)
		sh.Dir = dir
		sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out bytes.Buffer
		sh.Stdout, sh.Stderr = &out, &out
		err := sh.Run()
		if (c.setup || len(c.output) == 0) && err != nil {
			t.Errorf("%s: %s: %v\n%s", c.where, c.line, err, out.String())
			continue
		}
		if missing := firstMissing(c.output, out.String()); missing != "" {
			t.Errorf("%s: %s: the doc shows %q, the command printed:\n%s", c.where, c.line, missing, out.String())
		}
	}
	for prefix := range docsSkipped {
		if !used[prefix] {
			t.Errorf("docsSkipped lists %q, which no doc shows", prefix)
		}
	}
}

// skippedPrefix returns the docsSkipped entry line starts with, or "".
// A line with --print-spec runs nothing but prints the specs, so it is
// run and checked whatever its command.
func skippedPrefix(line string) string {
	if slices.Contains(strings.Fields(line), "--print-spec") {
		return ""
	}
	for prefix := range docsSkipped {
		if line == prefix || strings.HasPrefix(line, prefix+" ") {
			return prefix
		}
	}
	return ""
}

// checkParses parses a skipped command line's flags (parseOnly): the
// command must accept them. Shell operators end the arguments.
func checkParses(t *testing.T, c docCommand) {
	t.Helper()
	var args []string
	for _, f := range strings.Fields(c.line)[1:] {
		if f == ";" || f == "&&" || f == "|" || f == ">" || f == "#" || strings.HasPrefix(f, "#") {
			break
		}
		args = append(args, strings.TrimSuffix(f, ";"))
	}
	request.ParseOnly = true
	defer func() { request.ParseOnly = false }()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Errorf("%s: %s: flags refused (exit %d): %s", c.where, c.line, code, errb.String())
	}
}

// firstMissing returns the first of the shown lines not found in got, in
// order (spaces collapsed; "..." and "…" skip), or "".
func firstMissing(shown []string, got string) string {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var have []string
	for _, l := range strings.Split(got, "\n") {
		have = append(have, norm(l))
	}
	i := 0
	for _, s := range shown {
		s = norm(s)
		if s == "..." || s == "…" {
			continue
		}
		found := false
		for ; i < len(have); i++ {
			if have[i] == s {
				found = true
				i++
				break
			}
		}
		if !found {
			return s
		}
	}
	return ""
}
