package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// parseGroup registers a flag group on a fresh flag set and parses args.
func parseGroup(t *testing.T, register func(*flag.FlagSet), args ...string) *flag.FlagSet {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return fs
}

// errorNames reports whether err is nil when want is "", and otherwise
// whether its message contains want.
func errorNames(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

func TestSetFlagsListsOnlyGivenFlags(t *testing.T) {
	fs := parseGroup(t, func(fs *flag.FlagSet) {
		fs.Int("ranks", 4, "")
		fs.Int("chunks", 0, "")
		fs.String("kind", "", "")
	}, "--ranks", "4", "--kind=1f1b")
	set := request.SetFlags(fs)
	// --ranks is given with its default value: it still counts as given.
	if !set["ranks"] || !set["kind"] || set["chunks"] || len(set) != 2 {
		t.Errorf("setFlags = %v, want ranks and kind only", set)
	}
}

func TestSmallChecksNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no arguments", request.NoArguments(nil), ""},
		{"an argument", request.NoArguments([]string{"extra", "more"}), `unexpected argument "extra" (all inputs are flags)`},
		{"at the bound", request.AtLeast("stages", 1, 1), ""},
		{"below the bound", request.AtLeast("ranks", 0, 1), "--ranks must be at least 1, got 0"},
		{"below another bound", request.AtLeast("iterations", -2, 3), "--iterations must be at least 3, got -2"},
		{"all nil", request.FirstError(nil, nil), ""},
		{"first of two", request.FirstError(nil, errors.New("one"), errors.New("two")), "one"},
	} {
		if !errorNames(tc.err, tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

func TestFlagProblemPrintsOneLineAndSeeHelp(t *testing.T) {
	var stderr bytes.Buffer
	fs := request.NewFlags("demo", "[flags]", "A demonstration.", &stderr)
	fs.Int("stages", 0, "pipeline ranks P")
	err := request.FlagProblem(fs, &stderr, "demo", errors.New("--ranks must be at least 1, got 0"))
	if !errors.Is(err, request.ErrUsage) {
		t.Errorf("flagProblem returned %v, want errUsage", err)
	}
	if want := "pipelab demo: --ranks must be at least 1, got 0; see pipelab demo --help\n"; stderr.String() != want {
		t.Errorf("stderr %q, want the message and where the help is: %q", stderr.String(), want)
	}
}

func TestOutputFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--format", "json"}, ""},
		{[]string{"--format", "csv"}, `--format must be text or json, got "csv"`},
	} {
		var o request.OutputFlag
		parseGroup(t, o.Register, tc.args...)
		if err := o.Check(); !errorNames(err, tc.want) {
			t.Errorf("%v: check %v, want %q", tc.args, err, tc.want)
		}
	}

	report := map[string]any{"stages": 4, "ranks": []int{0, 1}}
	text := func(w io.Writer) func() error {
		return func() error { _, err := io.WriteString(w, "as text\n"); return err }
	}
	var asText bytes.Buffer
	if err := (&request.OutputFlag{Format: "text"}).Write(&asText, report, text(&asText)); err != nil || asText.String() != "as text\n" {
		t.Errorf("text: %q, %v; want the text function's output", asText.String(), err)
	}
	var asJSON bytes.Buffer
	if err := (&request.OutputFlag{Format: "json"}).Write(&asJSON, report, text(&asJSON)); err != nil {
		t.Fatal(err)
	}
	// The encoder's output is MarshalIndent's with two spaces and a newline.
	want, _ := json.MarshalIndent(report, "", "  ")
	if asJSON.String() != string(want)+"\n" {
		t.Errorf("json: %q, want %q", asJSON.String(), string(want)+"\n")
	}
}

func TestUnknownFamily(t *testing.T) {
	names := request.FamilyNames()
	// The registry's families and zb-auto, which is built from costs.
	if len(names) != len(pipeline.Families())+1 || names[len(names)-1] != "zb-auto" {
		t.Fatalf("familyNames has %d names, the registry %d families and zb-auto", len(names), len(pipeline.Families()))
	}
	for _, name := range names {
		if err := request.UnknownFamily(name); err != nil {
			t.Errorf("%s: %v, want nil for a registered family", name, err)
		}
	}
	err := request.UnknownFamily("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope" is not a schedule family`) || !strings.Contains(err.Error(), names[0]) {
		t.Errorf("nope: %v, want it refused with the known families listed", err)
	}
}

func TestShapeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "1f1b", "--ranks", "2", "--microbatches", "3"}, ""},
		{[]string{"--kind", "1f1b", "--microbatches", "3"}, "--ranks is required"},
		{[]string{"--kind", "1f1b", "--ranks", "2"}, "--microbatches is required"},
		{[]string{"--kind", "1f1b", "--ranks", "-2", "--microbatches", "3"}, "--ranks must be at least 1, got -2"},
		{[]string{"--kind", "pipedream", "--ranks", "2", "--microbatches", "3"}, "--kind pipedream has no iteration: give --total-microbatches N, not --microbatches"},
		{[]string{"--kind", "1f1b", "--ranks", "2", "--total-microbatches", "3"}, "--total-microbatches is for pipedream and localsgd"},
		{[]string{"--kind", "1f1b", "--ranks", "2", "--microbatches", "3", "--chunks", "-1"}, "--chunks must be at least 1 (0 for the family's default), got -1"},
	} {
		var s request.ShapeFlags
		parseGroup(t, s.Register, tc.args...)
		if err := s.Check(); !errorNames(err, tc.want) {
			t.Errorf("%v: check %v, want %q", tc.args, err, tc.want)
		}
	}

	var s request.ShapeFlags
	parseGroup(t, func(fs *flag.FlagSet) { s.Register(fs); s.RegisterFamilyOptions(fs) },
		"--kind", "localsgd", "--ranks", "2", "--total-microbatches", "4", "--replicas", "3", "--local-steps", "2", "--noam", "0")
	got, err := s.Generate()
	if err != nil {
		t.Fatal(err)
	}
	// The same shape given to the generator directly.
	want, err := pipeline.Generate("localsgd", pipeline.Shape{Ranks: 2, Microbatches: 4, Replicas: 3, LocalSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Ranks() != want.Ranks() || got.Stages() != want.Stages() || got.Microbatches != want.Microbatches || len(got.Rows[0]) != len(want.Rows[0]) {
		t.Errorf("generate: %d ranks, %d stages, %d microbatches, %d steps; want %d, %d, %d, %d",
			got.Ranks(), got.Stages(), got.Microbatches, len(got.Rows[0]), want.Ranks(), want.Stages(), want.Microbatches, len(want.Rows[0]))
	}

	bad := request.ShapeFlags{Kind: "nope", Ranks: 2, Microbatches: 3}
	if _, err := bad.Generate(); err == nil || !strings.HasPrefix(err.Error(), "--kind nope --ranks 2 --microbatches 3: ") {
		t.Errorf("unknown family: %v, want an error naming the flags", err)
	}
}

func TestPresetFlags(t *testing.T) {
	var p request.PresetFlags
	fs := parseGroup(t, func(fs *flag.FlagSet) { p.Register(fs, "model preset", " (with --model)") }, "--model", "gpt-1.3b")
	for _, name := range []string{"gpu", "link", "microbatch-size", "seq-len"} {
		if usage := fs.Lookup(name).Usage; !strings.HasSuffix(usage, " (with --model)") {
			t.Errorf("--%s help %q does not end with the note", name, usage)
		}
	}
	if fs.Lookup("model").Usage != "model preset" {
		t.Errorf("--model help %q, want the one given", fs.Lookup("model").Usage)
	}
	cfg, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	// The defaults: an H100 on InfiniBand NDR, one sample of 2048 tokens.
	if cfg.Network.Name != "gpt-1.3b" || cfg.GPU.Name != "h100" || cfg.Link.Name != "ib-ndr" || cfg.Microbatch != 1 || cfg.Sequence != 2048 {
		t.Errorf("config %+v, want gpt-1.3b on the default presets", cfg)
	}
	for _, tc := range []struct {
		change func(*request.PresetFlags)
		want   string
	}{
		{func(p *request.PresetFlags) { p.Model = "nope" }, "--model: "},
		{func(p *request.PresetFlags) { p.GPU = "nope" }, "--gpu: "},
		{func(p *request.PresetFlags) { p.Link = "nope" }, "--link: "},
	} {
		q := p
		tc.change(&q)
		if _, err := q.Config(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("config: %v, want an error starting %q", err, tc.want)
		}
	}
	if err := (&request.PresetFlags{MicrobatchSize: 1, SeqLen: 0}).Check(); !errorNames(err, "--microbatch-size and --seq-len must be positive, got 1 and 0") {
		t.Errorf("seq-len 0: %v", err)
	}
}

func TestCostFlagsKindAndCheck(t *testing.T) {
	for _, tc := range []struct {
		args []string
		kind string
		want string
	}{
		{nil, "unit", ""},
		{[]string{"--cost-model", "lockstep"}, "lockstep", ""},
		{[]string{"--fwd", "1", "--bwd", "2"}, "explicit", ""},
		{[]string{"--model", "llama-7b", "--gpu", "a100"}, "gpu", ""},
		{[]string{"--cost-model", "fast"}, "fast", `--cost-model must be unit or lockstep, got "fast"`},
		{[]string{"--cost-model", "unit", "--fwd", "1", "--bwd", "1"}, "explicit", "cannot be combined"},
		{[]string{"--fwd", "1", "--bwd", "1", "--model", "llama-7b"}, "gpu", "exclude each other"},
		{[]string{"--link", "pcie"}, "unit", "need --model"},
		{[]string{"--fwd", "1"}, "explicit", "--fwd and --bwd above 0, got 1 and 0"},
		{[]string{"--fwd", "1", "--bwd", "1", "--comm", "-1"}, "explicit", "--wgrad and --comm must not be negative"},
		{[]string{"--model", "llama-7b", "--microbatch-size", "0"}, "gpu", "--microbatch-size and --seq-len must be positive"},
	} {
		var c request.CostFlags
		fs := parseGroup(t, c.Register, tc.args...)
		c.Set = request.SetFlags(fs)
		if got := c.Kind(); got != tc.kind {
			t.Errorf("%v: kind %q, want %q", tc.args, got, tc.kind)
		}
		if err := c.Check(); !errorNames(err, tc.want) {
			t.Errorf("%v: check %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestWriteOutputFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := request.WriteOutputFile("out", path, func(w io.Writer) error { _, err := io.WriteString(w, "F0\n"); return err }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "F0\n" {
		t.Errorf("file holds %q (%v), want what was written", data, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode().Perm(), err)
	}

	failed := filepath.Join(dir, "failed.csv")
	err = request.WriteOutputFile("trace", failed, func(w io.Writer) error { return errors.New("disk full") })
	if err == nil || err.Error() != "--trace "+failed+": disk full" {
		t.Errorf("failed write: %v, want the flag, the path and the cause", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out.csv" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want out.csv only (no partial or temporary file)", names)
	}
}
