package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/request"
)

func TestTuneJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tuned.csv")
	gantt := filepath.Join(dir, "tuned.svg")
	var stdout, stderr bytes.Buffer
	args := []string{"tune", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "pcie", "--ranks", "2",
		"--microbatches", "4", "--kind", "1f1b,zb-h1,interleaved-1f1b:2", "--out", out, "--gantt", gantt, "--format", "json"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		BaselineMakespan float64 `json:"baseline_makespan"`
		TunedMakespan    float64 `json:"tuned_makespan"`
		Speedup          float64 `json:"speedup"`
		Partition        []int   `json:"partition"`
		Kind             string  `json:"kind"`
		Chunks           int     `json:"chunks"`
		Microbatches     int     `json:"microbatches"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	// Same microbatch count for both, so the per-sample ratio is the
	// makespan ratio.
	if want := rep.BaselineMakespan / rep.TunedMakespan; rep.Speedup <= 0 || abs(rep.Speedup-want) > 1e-12*want {
		t.Errorf("speedup %g, want baseline/tuned makespan = %g", rep.Speedup, want)
	}
	gpt, _ := cost.LookupNetwork("gpt-1.3b")
	sum := 0
	for _, n := range rep.Partition {
		sum += n
	}
	if sum != gpt.LayerCount() || len(rep.Partition) != 2*rep.Chunks {
		t.Errorf("partition %v: %d layers over %d stages, want %d layers over 2×%d", rep.Partition, sum, len(rep.Partition), gpt.LayerCount(), rep.Chunks)
	}
	if !slices.Contains([]string{"1f1b", "zb-h1", "interleaved-1f1b"}, rep.Kind) || rep.Microbatches != 4 {
		t.Errorf("schedule %q with %d microbatches, want one of those asked for, 4", rep.Kind, rep.Microbatches)
	}
	tab := readScheduleCSV(t, out)
	want, err := pipeline.Generate(rep.Kind, pipeline.Shape{Ranks: 2, Microbatches: 4, Chunks: rep.Chunks})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Ranks() != 2 || tab.Microbatches != 4 || tab.Stages() != want.Stages() {
		t.Errorf("CSV has %d ranks, %d stages, %d microbatches; want 2, %d, 4", tab.Ranks(), tab.Stages(), tab.Microbatches, want.Stages())
	}
	if b, err := os.ReadFile(gantt); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("--gantt wrote no SVG: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the output directory, want the CSV and the chart only", len(entries))
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestTuneText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "2", "--kind", "1f1b"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"tuned:", "baseline:", "speedup:", "partition"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestTuneRejects(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tune", "--ranks", "2"}, 2, "--model is required"},
		{[]string{"tune", "--model", "gpt-1.3b"}, 2, "--ranks"},
		{[]string{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--format", "yaml"}, 2, "--format"},
		{[]string{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--gantt", "x.pdf"}, 2, ".png or .svg"},
		{[]string{"tune", "--model", "gpt-9b", "--ranks", "2"}, 2, "llama-7b"},
		{[]string{"tune", "--model", "gpt-1.3b", "--gpu", "tpu", "--ranks", "2"}, 2, "h100"},
		{[]string{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--kind", "1f1b:x"}, 2, "chunks"},
		{[]string{"tune", "--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "2", "--kind", "1f1b", "--gpu-memory", "1GiB"}, 2, "nothing fits in 1.1 GB per rank"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
	}
}

// TestTuneNothingFits: Llama 2 70B on 8 × H100 cannot fit: its 16 bytes
// per parameter of weights, gradients and Adam state alone are
// 70e9 × 16 / 8 = 140 GB per rank on average, above the 80 GB of the GPU.
// The memory floor lets the tuner say so without simulating every
// candidate; the message names the limit in GB (the presets' unit) and the
// smallest peak found, and the exit status is 2: a workload the GPUs
// cannot hold is bad input.
func TestTuneNothingFits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"tune", "--model", "llama-70b", "--gpu", "h100", "--ranks", "8"}
	if code := run(args, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, stderr.String())
	}
	for _, want := range []string{"nothing fits in 80.0 GB per rank", "smallest peak found is", "weights, gradients and optimizer state"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, stderr.String())
		}
	}
}

// TestTuneChimeraCSV tunes Chimera alone for vlm-7b on 2 × H100 and
// follows its --out file through "pipelab check" and "pipelab simulate
// --schedule". PyTorch's CSV carries no routes, so both infer them
// (pipeline.ReadCSV). check steps the table as the library steps the
// generated one. simulate --schedule prices a CSV with the even cut
// (cost.GPUForTable): it reports what "simulate --kind chimera" reports for
// the generated table, and, since the tuned cut of this heterogeneous model
// is not the even one, not the tuner's makespan. The tuner's makespan is
// recovered from the file read back with the tuner's partition
// (cost.GPUForTablePartition), to the bit.
func TestTuneChimeraCSV(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "chimera.csv")
	preset := []string{"--model", "vlm-7b", "--gpu", "h100", "--link", "ib-ndr"}
	var rep request.TunePipelineReport
	runJSON(t, append([]string{"tune", "--ranks", "2", "--microbatches", "4", "--kind", "chimera", "--gpu-memory", "1000GiB",
		"--out", out, "--format", "json"}, preset...), &rep)
	if rep.Kind != "chimera" || rep.Chunks != 1 || rep.Placement != "bidirectional" || len(rep.Partition) != 2 {
		t.Fatalf("tuned %s ×%d, %s placement, partition %v; want chimera ×1, bidirectional, 2 parts", rep.Kind, rep.Chunks, rep.Placement, rep.Partition)
	}
	gen, err := pipeline.Generate("chimera", pipeline.Shape{Ranks: 2, Microbatches: 4})
	if err != nil {
		t.Fatal(err)
	}

	var checked request.CheckReport
	runJSON(t, []string{"check", out, "--format", "json"}, &checked)
	lowered, err := pipeline.Lower(pipeline.MergeIW(gen))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := pipeline.Lockstep(lowered)
	if err != nil {
		t.Fatal(err)
	}
	if want := (request.CheckReport{CSVFormat: "compute_only", Ranks: 2, Stages: 4, Microbatches: 4, Steps: steps}); checked != want {
		t.Errorf("check: %+v, want %+v", checked, want)
	}

	var read, generated request.SimulateReport
	runJSON(t, append([]string{"simulate", "--schedule", out, "--format", "json"}, preset...), &read)
	runJSON(t, append([]string{"simulate", "--kind", "chimera", "--ranks", "2", "--microbatches", "4", "--format", "json"}, preset...), &generated)
	read.Kind, read.Schedule = generated.Kind, generated.Schedule
	if !reflect.DeepEqual(read, generated) {
		t.Errorf("simulate --schedule of the tuned CSV\n%+v\nwant the generated table's\n%+v", read, generated)
	}
	model, _ := cost.LookupNetwork("vlm-7b")
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	cfg := cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}
	layers, err := cfg.Layers()
	if err != nil {
		t.Fatal(err)
	}
	even, err := cost.EvenPartition(layers, 2)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(even, rep.Partition) || read.Makespan == rep.TunedMakespan {
		t.Errorf("tuned partition %v (makespan %v) and even cut %v (makespan %v): want them to differ, or the test shows nothing",
			rep.Partition, rep.TunedMakespan, even, read.Makespan)
	}

	tab := readScheduleCSV(t, out)
	priced, err := cost.GPUForTablePartition(cfg, tab, rep.Partition)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(tab, priced, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sim.Makespan(tl); got != rep.TunedMakespan {
		t.Errorf("the CSV read back with partition %v: makespan %v, want the tuner's %v", rep.Partition, got, rep.TunedMakespan)
	}
	if got := slices.Max(sim.PeakMemory(tl, priced)); got != rep.TunedPeakMemory {
		t.Errorf("the CSV read back with partition %v: peak %v bytes, want the tuner's %v", rep.Partition, got, rep.TunedPeakMemory)
	}
}

// readScheduleCSV reads the schedule CSV a command wrote to path.
func readScheduleCSV(t *testing.T, path string) *pipeline.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := pipeline.ReadCSV(f, path)
	if err != nil {
		t.Fatalf("%s is not a schedule CSV: %v", path, err)
	}
	return tab
}

// TestTunePeakInOneUnit: the tuned schedule's peak memory is printed in the
// same unit (GB, 10⁹ bytes) on its line and in the "best per schedule"
// table, which repeats the one choice (issue 39: 72.9 on the tuned line and
// 67.9, GiB, in the table).
func TestTunePeakInOneUnit(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"tune", "--model", "gpt-1.3b", "--ranks", "4", "--microbatches", "8", "--kind", "1f1b"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	_, after, _ := strings.Cut(out, "peak memory ")
	tuned, _, _ := strings.Cut(after, " GB")
	_, table, _ := strings.Cut(out, "best per schedule")
	_, row, _ := strings.Cut(table, "\n  1f1b ")
	fields := strings.Fields(row)
	if tuned == "" || len(fields) < 2 || fields[1] != tuned {
		t.Errorf("tuned line's peak %q GB, table's row %q: want one number\n%s", tuned, fields, out)
	}
}
