package main

import (
	"github.com/pipelab/pipelab/experiments"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// commandNames lists the registered subcommands in order.
func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestHelpConvention runs "X --help" and "pipelab help X" for every
// subcommand: both print the same usage to standard output, nothing to
// standard error, exit 0, spell every flag --flag and state a default at
// most once.
func TestHelpConvention(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, name := range commandNames() {
		code, out, errs := runCLI(name, "--help")
		if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: pipelab "+name) {
			t.Errorf("%s --help: exit %d, stderr %q, stdout starts %.40q; want exit 0, usage on stdout only", name, code, errs, out)
			continue
		}
		if !strings.Contains(out, "  --max-memory") {
			t.Errorf("%s --help lists no --max-memory (every command has it):\n%s", name, out)
		}
		if loc := singleDash.FindString(out); loc != "" {
			t.Errorf("%s --help spells a flag with one dash: %q", name, loc)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help states a default twice: %q", name, line)
			}
		}
		code2, out2, errs2 := runCLI("help", name)
		if code2 != 0 || errs2 != "" || out2 != out {
			t.Errorf("help %s: exit %d, stderr %q, and stdout differs from %s --help", name, code2, errs2, name)
		}
	}
}

// TestFlagErrorConvention gives every subcommand an unknown flag: exit 2,
// and standard error holds the error in one line and where the help is,
// not the whole help.
func TestFlagErrorConvention(t *testing.T) {
	for _, name := range commandNames() {
		code, out, errs := runCLI(name, "--no-such-flag")
		want := "pipelab " + name + ": flag provided but not defined: --no-such-flag; see pipelab " + name + " --help\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q; want exit 2 and %q", name, code, out, errs, want)
		}
	}
}

// TestBadInputExitsTwo: refusals of what the user gave exit 2 in every
// command, whether a flag's check, a preset lookup, a generator or a file
// finds them.
func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.csv")
	if err := os.WriteFile(garbage, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", dir + "/missing.csv"}, "missing.csv"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "nosuch"}, `unknown model preset "nosuch"`},
		{[]string{"compare", "--ranks", "4", "--microbatches", "8", "--model", "nosuch"}, `unknown model preset "nosuch"`},
		{[]string{"tune", "--model", "nosuch", "--ranks", "4"}, `unknown model preset "nosuch"`},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "llama-7b", "--gpu", "nosuch"}, "--gpu"},
		{[]string{"schedule", "--kind", "chimera", "--ranks", "3", "--microbatches", "6"}, "even number of ranks"},
		{[]string{"sweep", dir + "/missing.yaml", "--out", dir + "/out"}, "missing.yaml"},
		{[]string{"simulate", "--ranks", "x"}, "--ranks"},
		// Input files each command reads: missing, or not what they must be.
		{[]string{"simulate", "--schedule", dir + "/missing.csv"}, "--schedule"},
		{[]string{"simulate", "--schedule", garbage}, "is not an action"},
		{[]string{"delays", "--schedule", dir + "/missing.csv"}, "--schedule"},
		{[]string{"train", "--objective", "logistic", "--method", "pipedream", "--step-size", "0.1", "--schedule", dir + "/missing.csv"}, "--schedule"},
		{[]string{"train", "--objective", "logistic", "--method", "rpd", "--stages", "4", "--total-microbatches", "10", "--step-size", "0.1", "--delays", dir + "/missing.csv"}, "--delays"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and at most two lines naming %q", tc.args, code, errs, tc.want)
		}
	}
	if code, _, _ := runCLI(); code != 2 {
		t.Errorf("pipelab with no command: exit %d, want 2", code)
	}
	if code, _, errs := runCLI("no-such-command"); code != 2 || !strings.Contains(errs, "see pipelab help") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errs)
	}
}

// TestVersion: "pipelab --version" prints the module version Go embedded
// in the test binary, the same value runtime/debug reports.
func TestVersion(t *testing.T) {
	code, out, errs := runCLI("--version")
	// One source: the version the tables record (experiments.Version,
	// the pipelab_version of dataset.json and the Parquet metadata).
	if code != 0 || errs != "" || !strings.HasPrefix(out, experiments.Version+" (commit ") {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want %s (commit ...)", code, out, errs, experiments.Version)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 plots", 1: "1 plot", 2: "2 plots"} {
		if got := request.Count(n, "plot"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTunePartitionFeedsSimulate takes the partition tune prints and gives
// it to simulate with the same shape and presets: simulate must accept it
// as printed and time the same makespan (the tuner's simulation and
// simulate's run the same event simulator on the same stage costs).
func TestTunePartitionFeedsSimulate(t *testing.T) {
	code, out, errs := runCLI("tune", "--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "2", "--kind", "1f1b")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`(?m)^tuned:.*--partition (\S+)\n\s+makespan (\S+) s`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("tune printed no tuned --partition and makespan:\n%s", out)
	}
	code, sim, errs := runCLI("simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "gpt-1.3b", "--partition", m[1])
	if code != 0 {
		t.Fatalf("simulate --partition %s: exit %d: %s", m[1], code, errs)
	}
	got := regexp.MustCompile(`(?m)^makespan:\s+(\S+)`).FindStringSubmatch(sim)
	if got == nil {
		t.Fatalf("simulate printed no makespan:\n%s", sim)
	}
	tuned, _ := strconv.ParseFloat(m[2], 64)
	simulated, _ := strconv.ParseFloat(got[1], 64)
	if math.Abs(tuned-simulated) > 5e-5 { // tune prints 4 decimals
		t.Errorf("tune's makespan %s s, simulate --partition %s times %s s", m[2], m[1], got[1])
	}
	code, help, _ := runCLI("tune", "--help")
	if code != 0 || !strings.Contains(help, `"pipelab simulate --partition" takes`) {
		t.Errorf("tune --help does not say its partition is simulate's --partition")
	}
}

// TestEfficiencyEverywhere: --efficiency, once tune's only, prices the GPU
// model of simulate too. At cost.DefaultEfficiency (0.5) it changes
// nothing; at half of it every compute time doubles while transfers keep
// their time, so the makespan grows by more than 1× and at most 2×.
func TestEfficiencyEverywhere(t *testing.T) {
	base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "llama-7b", "--format", "json"}
	makespan := func(extra ...string) float64 {
		var rep struct{ Makespan float64 }
		runJSON(t, append(slices.Clone(base), extra...), &rep)
		return rep.Makespan
	}
	def, same, slow := makespan(), makespan("--efficiency", "0.5"), makespan("--efficiency", "0.25")
	if same != def || !(slow > def && slow <= 2*def) {
		t.Errorf("makespan %g by default, %g at 0.5, %g at 0.25; want equal, then in (1×, 2×]", def, same, slow)
	}
	if code, _, errs := runCLI(append(slices.Clone(base), "--efficiency", "1.5")...); code != 2 || !strings.Contains(errs, "--efficiency must be in (0, 1]") {
		t.Errorf("--efficiency 1.5: exit %d, stderr %q", code, errs)
	}
}
