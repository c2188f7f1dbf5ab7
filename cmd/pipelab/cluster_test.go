package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost/validation"
	"github.com/pipelab/pipelab/request"
)

// sc21Config is a GPT-2 config.json of SC21 Table 1's 18.4B model
// (hidden 6144, 40 layers, 48 heads, vocabulary 51200, sequence 2048).
const sc21Config = `{"model_type": "gpt2", "n_embd": 6144, "n_layer": 40, "n_head": 48, "n_inner": null,
"n_positions": 2048, "vocab_size": 51200}`

// simulate --format json of SC21's 18.4B run (t 8, p 1, d 32, b 8, 4
// microbatches, full recomputation) on Selene's nodes reports the whole
// step and its FLOP/s per GPU, which times the step and the 256 GPUs give
// back equation 3 of Narayanan et al.: 96·B·s·l·h²·(1 + s/6h + V/16lh)
// with B = 4·8·32 = 1024.
func TestSimulateClusterReport(t *testing.T) {
	cfg := writeFile(t, "gpt-18b.json", sc21Config)
	var rep request.SimulateReport
	runJSON(t, []string{"simulate", "--kind", "1f1b", "--ranks", "1", "--microbatches", "4", "--model-config", cfg,
		"--microbatch-size", "8", "--seq-len", "2048", "--gpu", "a100", "--link", "ib-hdr", "--gpus-per-node", "8",
		"--node-link", "nvlink3", "--tp", "8", "--dp", "32", "--recompute", "full", "--format", "json"}, &rep)
	if rep.GPUs != 256 {
		t.Errorf("%d GPUs, want 8·1·32 = 256", rep.GPUs)
	}
	if !(rep.IterationSeconds > rep.Makespan) {
		t.Errorf("iteration %g s is not after the makespan %g s (the gradient all-reduce and Adam follow)", rep.IterationSeconds, rep.Makespan)
	}
	const B, s, l, h, V = 1024.0, 2048.0, 40.0, 6144.0, 51200.0
	want := 96 * B * s * l * h * h * (1 + s/(6*h) + V/(16*l*h))
	if got := rep.ModelFLOPsPerGPU * rep.IterationSeconds * 256; math.Abs(got-want) > 1e-9*want {
		t.Errorf("FLOP/s × step × GPUs = %.6g, equation 3 gives %.6g", got, want)
	}
}

// Full recomputation runs the forward again: the same run takes longer
// than without it, and selective recomputation falls between.
func TestSimulateRecomputeOrders(t *testing.T) {
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--tp", "2", "--format", "json"}
	step := map[string]float64{}
	for _, r := range []string{"none", "selective", "full"} {
		var rep request.SimulateReport
		runJSON(t, append(slicesClone(args), "--recompute", r), &rep)
		step[r] = rep.Makespan
	}
	if !(step["none"] < step["selective"] && step["selective"] < step["full"]) {
		t.Errorf("makespans %v: want none < selective < full", step)
	}
}

// Bad cluster flags: exit 2 and one line naming the flag.
func TestClusterFlagErrors(t *testing.T) {
	base := []string{"--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "gpt-1.3b"}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--tp", "16", "--gpus-per-node", "8", "--node-link", "nvlink3"}, "--tp: tensor-parallel 16 is more than the 8 GPUs of a node"},
		{[]string{"--tp", "0"}, "--tp and --dp must be at least 1"},
		{[]string{"--recompute", "some"}, "--recompute: unknown recomputation"},
		{[]string{"--sequence-parallel"}, "--sequence-parallel"},
		{[]string{"--node-link", "nvlink3"}, "--gpus-per-node and --node-link come together"},
		{[]string{"--gpus-per-node", "8", "--node-link", "warp"}, "--node-link: unknown link preset"},
	}
	for _, cmd := range []string{"simulate", "compare"} {
		for _, tt := range tests {
			var out, errb bytes.Buffer
			code := run(append(append([]string{cmd}, base...), tt.args...), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tt.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and one line with %q", cmd, tt.args, code, errb.String(), tt.want)
			}
		}
	}
}

// tune --gpus reports every split of the GPUs with T·P·D = GPUs, and its
// best is the split with the shortest step.
func TestTuneClusterCommand(t *testing.T) {
	var rep request.ClusterTuneReport
	runJSON(t, []string{"tune", "--gpus", "16", "--batch-size", "32", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "ib-hdr",
		"--gpus-per-node", "8", "--node-link", "nvlink3", "--kind", "1f1b", "--format", "json"}, &rep)
	if len(rep.Splits) == 0 {
		t.Fatal("no splits")
	}
	for _, s := range rep.Splits {
		if s.TP*s.Ranks*s.DP != 16 {
			t.Errorf("split %d·%d·%d is not 16 GPUs", s.TP, s.Ranks, s.DP)
		}
		if s.Why == "" && s.IterationSeconds < rep.Best.IterationSeconds {
			t.Errorf("split t %d p %d d %d takes %g s, less than the best's %g s", s.TP, s.Ranks, s.DP, s.IterationSeconds, rep.Best.IterationSeconds)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "16"}, "--gpus needs --batch-size"},
		{[]string{"--batch-size", "16"}, "--batch-size goes with --gpus"},
		{[]string{"--gpus", "16", "--batch-size", "16", "--ranks", "2"}, "drop --ranks"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"tune", "--model", "gpt-1.3b"}, tt.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("tune %v: exit %d, %q; want exit 2 with %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// The command line prices SC21's 39.1B row as "pipelab validate" does: a
// GPT-2 config.json of its size on examples/hardware/selene-a100.yaml (the
// calibrated hardware) with t 8, d 32, full recomputation gives the
// validation row's teraFLOP/s per GPU, to the file's rounding of the
// calibration.
func TestSimulateSeleneMatchesValidation(t *testing.T) {
	v, err := validation.ValidateTimingModel()
	if err != nil {
		t.Fatal(err)
	}
	want := math.NaN()
	for _, r := range v.Rows {
		if r.Section == "sc21" && strings.HasPrefix(r.Config, "39.1B ") {
			want = r.Predicted
		}
	}
	cfg := writeFile(t, "gpt-39b.json", `{"model_type": "gpt2", "n_embd": 8192, "n_layer": 48, "n_head": 64, "n_positions": 2048, "vocab_size": 51200}`)
	var rep request.SimulateReport
	runJSON(t, []string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "12", "--model-config", cfg, "--microbatch-size", "4",
		"--hardware", filepath.Join("..", "..", "examples", "hardware", "selene-a100.yaml"), "--tp", "8", "--dp", "32", "--recompute", "full", "--format", "json"}, &rep)
	if got := rep.ModelFLOPsPerGPU / 1e12; !(math.Abs(got-want) < 2e-3*want) {
		t.Errorf("simulate gives %.4g TFLOP/s per GPU, pipelab validate's 39.1B row %.4g", got, want)
	}
}

// The command line prices the Zero Bubble paper's 1.5B ZB-1p and ZB-2p as
// "pipelab validate" does: a GPT-2 config.json of its size (32,000 words,
// the vocabulary docs/validation.md derives) on
// examples/hardware/zb-a100-roce.yaml, which carries the calibration and
// the runtime's action gap, with the paper's partition, zb-auto under p
// and 2p microbatches' activations, and --post-validation, the paper's
// runtime timing a step as its iterations overlap. Each is within 1% of
// its validation row, not equal: simulate builds zb-auto from the
// actions' times with the gap, the validation from the kernels' times as
// the paper's profile gives them, and the schedules may differ (ZB-1p
// 13.11 against 13.20 samples a GPU a second, measured 2026-12-06).
// Without --post-validation ZB-2p's step is the makespan plus the slowest
// step, longer.
func TestSimulateZeroBubbleMatchesValidation(t *testing.T) {
	v, err := validation.ValidateTimingModel()
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, "gpt-1.5b.json", `{"model_type": "gpt2", "n_embd": 2304, "n_layer": 22, "n_head": 24, "n_positions": 1024, "vocab_size": 32000}`)
	simulate := func(limit string, extra ...string) float64 {
		var rep request.SimulateReport
		runJSON(t, append([]string{"simulate", "--kind", "zb-auto", "--max-activations", limit, "--ranks", "8", "--microbatches", "24", "--model-config", cfg,
			"--microbatch-size", "6", "--seq-len", "1024", "--partition", "3,3,3,3,3,3,3,3",
			"--hardware", filepath.Join("..", "..", "examples", "hardware", "zb-a100-roce.yaml"), "--format", "json"}, extra...), &rep)
		return 24 * 6 / (rep.IterationSeconds * 8)
	}
	for _, tc := range []struct{ paper, limit string }{{"ZB-1p", "8"}, {"ZB-2p", "16"}} {
		want := math.NaN()
		for _, r := range v.Rows {
			if r.Section == "throughput" && strings.HasPrefix(r.Config, "1.5B ") && r.Quantity == tc.paper+", m 24, GPU model" {
				want = r.Predicted
			}
		}
		if got := simulate(tc.limit, "--post-validation"); !(math.Abs(got-want) < 0.01*want) {
			t.Errorf("%s: simulate --post-validation gives %.4g samples a GPU a second, pipelab validate's row %.4g", tc.paper, got, want)
		}
	}
	if with, without := simulate("16", "--post-validation"), simulate("16"); !(with > without) {
		t.Errorf("ZB-2p: %.4g samples a GPU a second with --post-validation, %.4g without; want more with it", with, without)
	}
}

// --overlap-grad-reduce hides the gradient reduction behind the last
// backward, so the step shortens and the makespan does not change;
// --distributed-optimizer splits the Adam state, so every rank's peak
// memory falls (by how much, cost's TestStaticBytesSharded checks).
func TestSimulateDataParallelOptions(t *testing.T) {
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--gpu", "a100",
		"--link", "ib-hdr", "--gpus-per-node", "8", "--node-link", "nvlink3", "--tp", "2", "--dp", "8", "--format", "json"}
	var plain, overlap, dist request.SimulateReport
	runJSON(t, args, &plain)
	runJSON(t, append(slicesClone(args), "--overlap-grad-reduce"), &overlap)
	runJSON(t, append(slicesClone(args), "--distributed-optimizer"), &dist)
	if overlap.Makespan != plain.Makespan || !(overlap.IterationSeconds < plain.IterationSeconds) {
		t.Errorf("overlap: makespan %g (plain %g), step %g (plain %g); want the same makespan and a shorter step",
			overlap.Makespan, plain.Makespan, overlap.IterationSeconds, plain.IterationSeconds)
	}
	for i := range plain.Ranks {
		if !(dist.Ranks[i].PeakMemoryBytes < plain.Ranks[i].PeakMemoryBytes) {
			t.Errorf("rank %d: peak %g with the distributed optimizer, %g without", i, dist.Ranks[i].PeakMemoryBytes, plain.Ranks[i].PeakMemoryBytes)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "gpt-1.3b", "--distributed-optimizer"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "give --dp above 1") {
		t.Errorf("--distributed-optimizer without --dp: exit %d, %q", code, errb.String())
	}
}

// --post-validation times the optimizer step, which only the GPU model of
// --model prices: without it, and on a schedule that replicates stages
// (Chimera, whose step is not priced), it is refused in one line naming
// the flag.
func TestSimulatePostValidationRefused(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--post-validation"},
		{"simulate", "--kind", "chimera", "--ranks", "4", "--microbatches", "4", "--model", "gpt-1.3b", "--post-validation"},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if msg := strings.TrimSpace(errb.String()); code != 2 || !strings.Contains(msg, "--post-validation") || strings.Contains(msg, "\n") || out.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2 and one line naming --post-validation", args, code, errb.String(), out.Len())
		}
	}
}

// tune --post-validation ranks by the longest rank span and says so, on
// the GPU model and on measured stages (the Zero Bubble paper's 1.5B
// profile, examples/zb-1.5b-costs.csv).
func TestTunePostValidation(t *testing.T) {
	var rep request.TunePipelineReport
	runJSON(t, []string{"tune", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink3", "--ranks", "4", "--microbatches", "8",
		"--kind", "1f1b,zb-h2", "--post-validation", "--format", "json"}, &rep)
	if !rep.PostValidation || !(rep.TunedPerSample*8 <= rep.TunedMakespan) {
		t.Errorf("post_validation %v, %g s per sample over 8 samples against a makespan of %g s; want the flag reported and the span at most the makespan",
			rep.PostValidation, rep.TunedPerSample, rep.TunedMakespan)
	}
	var measured request.TunePipelineReport
	runJSON(t, []string{"tune", "--costs", filepath.Join("..", "..", "examples", "zb-1.5b-costs.csv"), "--ranks", "8", "--microbatches", "24",
		"--kind", "1f1b,zb-h2,zb-auto", "--post-validation", "--format", "json"}, &measured)
	if !measured.PostValidation || !(measured.TunedPerSample*24 <= measured.TunedMakespan*(1+1e-12)) {
		t.Errorf("measured: post_validation %v, %g s per microbatch over 24 against a makespan of %g s", measured.PostValidation,
			measured.TunedPerSample, measured.TunedMakespan)
	}
}
