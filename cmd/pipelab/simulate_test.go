package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/request"
)

// runJSON runs a pipelab command and decodes its JSON output into v.
func runJSON(t *testing.T, args []string, v any) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("%v: output %q is not JSON: %v", args, out.String(), err)
	}
}

// 1F1B, P = 4, M = 8, T_F = 1, T_B = 2, free transfers: makespan
// (M + P - 1)(T_F + T_B) = 33, bubble ratio (P - 1)/(M + P - 1), every rank
// busy M(T_F + T_B) = 24, rank r holding P - r activations (docs/reference.md §2).
func TestSimulateCommandClosedForm(t *testing.T) {
	var rep request.SimulateReport
	runJSON(t, []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "2", "--format", "json"}, &rep)
	if rep.Makespan != 33 || rep.BubbleRatio < 3.0/11-1e-12 || rep.BubbleRatio > 3.0/11+1e-12 {
		t.Errorf("makespan %v, bubble %v; want 33 and 3/11", rep.Makespan, rep.BubbleRatio)
	}
	if len(rep.Ranks) != 4 {
		t.Fatalf("%d ranks reported, want 4", len(rep.Ranks))
	}
	for _, r := range rep.Ranks {
		if r.Busy != 24 || r.Idle != 9 || r.CommWait != 0 || r.PeakActivations != float64(4-r.Rank) {
			t.Errorf("rank %+v: want busy 24, idle 9, no comm wait, %d activations", r, 4-r.Rank)
		}
	}
	if rep.Steps == nil || rep.Messages != 2*3*8 {
		t.Errorf("steps %v, messages %d; want a lockstep count and 2(P-1)M = 48 messages", rep.Steps, rep.Messages)
	}
}

// PyTorch's two-rank example without its bubbles takes 10 lockstep steps
// (pipeline's TestLockstepSteps; "pipelab check" reports the same): as a
// cost it is the timeline's makespan.
func TestSimulateCommandLockstepCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "simple.csv")
	if err := os.WriteFile(path, []byte("0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep request.SimulateReport
	runJSON(t, []string{"simulate", "--schedule", path, "--cost-model", "lockstep", "--format", "json"}, &rep)
	if rep.Steps == nil || *rep.Steps != 10 || rep.Makespan != 10 {
		t.Errorf("steps %v, makespan %v; want 10 and 10", rep.Steps, rep.Makespan)
	}
}

// Several iterations report their makespans with mean and spread; the same
// seed reproduces them.
func TestSimulateCommandIterations(t *testing.T) {
	args := []string{"simulate", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "1", "--wgrad", "1",
		"--policy", "ready", "--hint", "bfw", "--jitter", "0.2", "--straggler", "1:1.5", "--iterations", "3", "--seed", "9", "--format", "json"}
	var a, b request.SimulateReport
	runJSON(t, args, &a)
	runJSON(t, args, &b)
	it := a.Iterations
	if it == nil || len(it.Makespans) != 3 {
		t.Fatalf("iterations %+v, want 3 makespans", it)
	}
	mean := (it.Makespans[0] + it.Makespans[1] + it.Makespans[2]) / 3
	if d := it.Mean - mean; d > 1e-9 || d < -1e-9 {
		t.Errorf("mean %v, want %v", it.Mean, mean)
	}
	if it.Makespans[0] != a.Makespan {
		t.Errorf("first iteration %v differs from the reported timeline's makespan %v", it.Makespans[0], a.Makespan)
	}
	if b.Iterations == nil || b.Iterations.Mean != it.Mean {
		t.Errorf("same seed, different mean: %+v and %+v", it, b.Iterations)
	}
}

// Without variability, --policy ready with the table hint reports what
// --policy fixed reports, number for number, by waiting as planned; with
// --patience none it is faster on Chimera with T_B = 2T_F, whose fixed
// order idles rank 0 before B0 while F4 of the next unit could run
// (sim's TestPolicyReadyNoWaitReproducesFixedIff finds that gap).
func TestSimulateCommandReadyAsPlanned(t *testing.T) {
	base := []string{"simulate", "--kind", "chimera", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "1", "--wgrad", "1", "--format", "json"}
	var fixed, plan, none request.SimulateReport
	runJSON(t, base, &fixed)
	runJSON(t, append(slices.Clone(base), "--policy", "ready"), &plan)
	runJSON(t, append(slices.Clone(base), "--policy", "ready", "--patience", "none"), &none)
	if plan.Policy != "ready" || plan.Hint != "table" || plan.Patience != "plan" {
		t.Errorf("policy fields %q %q %q, want ready, table, plan", plan.Policy, plan.Hint, plan.Patience)
	}
	plan.Policy, plan.Hint, plan.Patience = fixed.Policy, "", ""
	if !reflect.DeepEqual(plan, fixed) {
		t.Errorf("ready as planned\n%+v\nwant the fixed report\n%+v", plan, fixed)
	}
	if !(none.Makespan < fixed.Makespan) {
		t.Errorf("ready without patience: makespan %v, want below fixed %v", none.Makespan, fixed.Makespan)
	}
}

func TestSimulateCommandFiles(t *testing.T) {
	dir := t.TempDir()
	trace, gantt := filepath.Join(dir, "t.json"), filepath.Join(dir, "g.png")
	var out, errb bytes.Buffer
	args := []string{"simulate", "--kind", "interleaved-1f1b", "--ranks", "2", "--microbatches", "4", "--fwd", "1", "--bwd", "2", "--comm", "0.5",
		"--trace", trace, "--gantt", gantt}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(trace)
	if err != nil || !json.Valid(data) {
		t.Errorf("trace %s: %v, valid JSON %v", trace, err, json.Valid(data))
	}
	if st, err := os.Stat(gantt); err != nil || st.Size() == 0 {
		t.Errorf("gantt %s: %v", gantt, err)
	}
	if !strings.Contains(out.String(), "makespan:") {
		t.Errorf("text output lacks the makespan:\n%s", out.String())
	}
}

// Chimera's table is built for T_B = T_F (arXiv 2107.06925): with those
// times and free transfers its bubble ratio is (P - 2)/(2M + P - 2) of the
// iteration, every rank busy 2M·T_F, so the makespan is (2M + P - 2)T_F.
// The same table written by "pipelab schedule --format csv" has no routes
// in it (PyTorch's CSV carries none); read back with --schedule, its
// routes are inferred and it times exactly as the generated one.
func TestSimulateCommandChimera(t *testing.T) {
	for _, pm := range [][2]int{{2, 2}, {2, 4}, {4, 8}, {6, 12}} {
		p, m := strconv.Itoa(pm[0]), strconv.Itoa(pm[1])
		costs := []string{"--fwd", "1", "--bwd", "1", "--format", "json"}
		var gen request.SimulateReport
		runJSON(t, append([]string{"simulate", "--kind", "chimera", "--ranks", p, "--microbatches", m}, costs...), &gen)
		if want := float64(2*pm[1] + pm[0] - 2); gen.Makespan != want {
			t.Errorf("chimera P=%s M=%s: makespan %v, want 2M + P - 2 = %v", p, m, gen.Makespan, want)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"schedule", "--kind", "chimera", "--ranks", p, "--microbatches", m, "--format", "csv"}, &out, &errb); code != 0 {
			t.Fatalf("schedule: exit %d, stderr %q", code, errb.String())
		}
		path := filepath.Join(t.TempDir(), "chimera.csv")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var read request.SimulateReport
		runJSON(t, append([]string{"simulate", "--schedule", path}, costs...), &read)
		read.Kind, read.Schedule = gen.Kind, gen.Schedule
		if !reflect.DeepEqual(read, gen) {
			t.Errorf("chimera P=%s M=%s: from its CSV\n%+v\nwant as generated\n%+v", p, m, read, gen)
		}
	}
}

// Wrong flags are usage errors naming the flag.
func TestSimulateCommandRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--ranks", "4", "--microbatches", "8"}, "--kind"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--hint", "bf"}, "--policy ready"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--straggler", "1"}, "RANK:FACTOR"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "1"}, "--bwd"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "1", "--model", "llama-7b"}, "exclude"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--cost-model", "lockstep", "--policy", "ready"}, "lockstep"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--gantt", "x.jpg"}, "--gantt"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--gpu", "h100"}, "--model"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--patience", "none"}, "--policy ready"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--partition", "1,2,3,4"}, "--model"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "llama-7b", "--partition", "8,x"}, "positive layer counts"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--hint", "bfw", "--patience", "none"}, "--hint table"},
		{[]string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--patience", "soon"}, "--patience"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"simulate"}, tc.args...), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", tc.args, code)
		}
		if !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: stderr %q does not mention %q", tc.args, errb.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--kind", "chimera", "--ranks", "3", "--microbatches", "6"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "chimera") {
		t.Errorf("chimera with odd P: exit %d (want 2, bad input), stderr %q", code, errb.String())
	}
	if code := run([]string{"simulate", "--help"}, &out, &errb); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
}

// An unknown --kind is a flag error, as "pipelab schedule" makes it: exit 2
// (usage), the flag and the value named, and every family of the registry
// (pipeline.Families) listed so the user can pick one.
func TestSimulateCommandUnknownKind(t *testing.T) {
	for _, cmd := range []string{"simulate", "schedule"} {
		var out, errb bytes.Buffer
		code := run([]string{cmd, "--kind", "nope", "--ranks", "4", "--microbatches", "8"}, &out, &errb)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (usage); stderr %q", cmd, code, errb.String())
		}
		first, _, _ := strings.Cut(errb.String(), "\n")
		if !strings.HasPrefix(first, "pipelab "+cmd+`: --kind "nope" is not a schedule family (one of `) {
			t.Errorf("%s: first line %q, want the flag and the value named", cmd, first)
		}
		for _, f := range pipeline.Families() {
			if !strings.Contains(first, f.Name) {
				t.Errorf("%s: %q does not list the family %s", cmd, first, f.Name)
			}
		}
	}
}

// --flash-attention drops the stored attention scores: on 1F1B rank 0
// holds P = 4 microbatches of stage 0 at its peak (docs/reference.md §2), each
// keeping 5as²b - 4asb fewer bytes per decoder layer (scores against the
// log-sum-exp, a = 32 heads, s = 2048, b = 1 for llama-7b), so its peak
// falls by 4 × (decoder layers of stage 0) × that.
func TestSimulateCommandFlashAttention(t *testing.T) {
	base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "llama-7b", "--format", "json"}
	var plain, flash request.SimulateReport
	runJSON(t, base, &plain)
	runJSON(t, append(slices.Clone(base), "--flash-attention"), &flash)
	model, err := cost.LookupNetwork("llama-7b")
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if model.Blocks[0].Kind != cost.Embedding || model.Blocks[0].Count != 1 || model.Blocks[1].Kind != cost.Decoder || model.Blocks[1].Heads != 32 {
		t.Fatalf("llama-7b no longer starts with one embedding and 32-head decoders: %+v", model.Blocks[:2])
	}
	decoders := float64(g.Partition()[0] - 1)
	const a, s = 32.0, 2048.0
	want := 4 * decoders * (5*a*s*s - 4*a*s)
	if got := plain.Ranks[0].PeakMemoryBytes - flash.Ranks[0].PeakMemoryBytes; math.Abs(got-want) > 1e-9*want {
		t.Errorf("rank 0's peak falls by %v bytes, want %v", got, want)
	}
	if plain.Ranks[0].PeakActivations != 4 || flash.Ranks[0].PeakActivations != 4 {
		t.Errorf("rank 0 holds %g and %g activations, want 4", plain.Ranks[0].PeakActivations, flash.Ranks[0].PeakActivations)
	}
	if !(flash.Makespan > plain.Makespan) {
		t.Errorf("the recomputed scores should cost time: %v against %v", flash.Makespan, plain.Makespan)
	}
}

// The schedule pipelab tune writes, read back with the partition it
// reports, prices exactly as the tuner priced it: the same table (the CSV
// round trip is tested in pipeline), the same cut of the layers, the same
// simulator. Chimera's replicas take one partition entry per model part;
// zb-v and interleaved-zb cut a heterogeneous model into 8 stages on 4
// ranks.
func TestSimulateCommandTunedPartition(t *testing.T) {
	for _, tc := range []struct{ model, link, stages, schedules string }{
		{"gpt-1.3b", "nvlink", "2", "chimera"}, {"vlm-7b", "ib-ndr", "4", "chimera"}, {"vlm-7b", "ib-ndr", "4", "zb-v:2,interleaved-zb:2"},
	} {
		csv := filepath.Join(t.TempDir(), "tuned.csv")
		var tuned request.TunePipelineReport
		runJSON(t, []string{"tune", "--model", tc.model, "--gpu", "h100", "--link", tc.link, "--ranks", tc.stages, "--kind", tc.schedules,
			"--out", csv, "--format", "json"}, &tuned)
		parts := make([]string, len(tuned.Partition))
		for i, n := range tuned.Partition {
			parts[i] = strconv.Itoa(n)
		}
		var rep request.SimulateReport
		runJSON(t, []string{"simulate", "--schedule", csv, "--model", tc.model, "--gpu", "h100", "--link", tc.link,
			"--partition", strings.Join(parts, ","), "--format", "json"}, &rep)
		if rep.Makespan != tuned.TunedMakespan {
			t.Errorf("%s (%s): simulated %v, tuner %v", tc.model, tuned.Kind, rep.Makespan, tuned.TunedMakespan)
		}
		var peak float64
		for _, r := range rep.Ranks {
			peak = max(peak, r.PeakMemoryBytes)
		}
		if peak != tuned.TunedPeakMemory {
			t.Errorf("%s (%s): peak %v bytes, tuner %v", tc.model, tuned.Kind, peak, tuned.TunedPeakMemory)
		}
	}
}
