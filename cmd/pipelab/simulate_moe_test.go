package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/request"
)

// simulate --format json reports the model's total and active parameters
// (cost.Network.Params and ActiveParams of the config read), and
// --expert-parallel prices the all-to-alls: in Qwen3-30B-A3B's 1F1B, whose
// forwards and backwards run alone, spreading the experts over 8 GPUs adds
// to the ranks' busy time, all together, 4 all-to-alls (dispatch and
// combine, forward and backward) per MoE layer and microbatch: 48 × 4 × M.
func TestSimulateCommandMoE(t *testing.T) {
	const config = "../../pipeline/cost/testdata/hf/qwen3-30b-a3b.json"
	base := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model-config", config,
		"--flash-attention", "--format", "json"}
	var plain, spread request.SimulateReport
	runJSON(t, base, &plain)
	runJSON(t, append(base, "--expert-parallel", "8"), &spread)
	net, err := cost.ReadHFConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Params != net.Params() || plain.ActiveParams != net.ActiveParams() {
		t.Errorf("params %v, active %v; want %v and %v", plain.Params, plain.ActiveParams, net.Params(), net.ActiveParams())
	}
	// Each all-to-all moves s·b·k·h bf16 bytes.
	a2a := cost.ExpertParallelOn(8).AllToAllTime(2048 * 1 * 8 * 2048 * cost.BytesPerElement)
	var added float64
	for r := range plain.Ranks {
		added += spread.Ranks[r].Busy - plain.Ranks[r].Busy
	}
	if want := 48 * 4 * 8 * a2a; math.Abs(added-want) > 1e-9*want {
		t.Errorf("expert parallelism adds %v s of busy time, want %v", added, want)
	}
}

// An expert-parallel degree that does not split a model's experts evenly
// is refused naming the flag: Mixtral's 8 experts over 16 GPUs.
func TestSimulateCommandExpertParallelRefused(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8",
		"--model-config", "../../pipeline/cost/testdata/hf/mixtral-8x7b-v0.1.json", "--expert-parallel", "16"}
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--expert-parallel: expert-parallel degree 16 does not divide the 8 routed experts") {
		t.Errorf("exit %d, stderr %q: want a refusal naming --expert-parallel", code, errb.String())
	}
}
