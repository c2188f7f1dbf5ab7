package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// TestMoEParamsPublished reads the HF configs of the MoE models and of
// Qwen3's dense model shipped in testdata/hf (provenance in its README)
// and checks the total parameters within 1% of the published totals, and
// the parameters a token runs through against the count worked out by hand
// from the layer shapes: the total less the (experts - top-k) routed
// experts a token skips in each MoE layer, 3·hidden·width each (SwiGLU).
// The published "activated" counts are compared in docs/validation.md, not
// asserted: ours, which count the embedding and the head, come out 1.5%
// above the published 3.3B and 37B. The published totals:
//   - Mixtral-8x7B: 46.7B total, 12.9B a token (Mistral AI, "Mixtral of
//     experts", 2023-12-11; Jiang et al., arXiv 2401.04088 §2.1: 47B and
//     13B);
//   - Qwen3-30B-A3B: 30.5B total, 3.3B activated (the Qwen/Qwen3-30B-A3B
//     model card);
//   - DeepSeek-V3: 671B total, 37B activated (arXiv 2412.19437, abstract;
//     the main model: the checkpoint's 685B add the 14B multi-token
//     prediction module, which the timing model leaves out);
//   - Qwen3-8B: 8.2B, all active (the Qwen/Qwen3-8B model card).
func TestMoEParamsPublished(t *testing.T) {
	for _, tc := range []struct {
		file    string
		total   float64
		skipped float64 // routed-expert parameters a token skips, by hand
	}{
		{"mixtral-8x7b-v0.1.json", 46.7e9, 32 * (8 - 2) * 3 * 4096 * 14336},
		{"qwen3-30b-a3b.json", 30.5e9, 48 * (128 - 8) * 3 * 2048 * 768},
		{"deepseek-v3.json", 671e9, (61 - 3) * (256 - 8) * 3 * 7168 * 2048},
		{"qwen3-8b.json", 8.2e9, 0},
	} {
		net, err := ReadHFConfig("testdata/hf/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := net.Params(); math.Abs(got-tc.total) > 0.01*tc.total {
			t.Errorf("%s: %.4gB parameters, want within 1%% of the published %.4gB", tc.file, got/1e9, tc.total/1e9)
		}
		if got, want := net.ActiveParams(), net.Params()-tc.skipped; got != want {
			t.Errorf("%s: %.6gB parameters a token, want %.6gB", tc.file, got/1e9, want/1e9)
		}
	}
}

// TestAllToAllTime checks the expert-parallel all-to-all against its
// closed form: a GPU keeps 1/D of its bytes, sends (G-1)/D over the
// intra-node link and (D-G)/D over the inter-node link when the group of D
// spans nodes of G, the slower share setting the time.
func TestAllToAllTime(t *testing.T) {
	nvlink, _ := LookupLink("nvlink")
	ib, _ := LookupLink("ib-ndr")
	const bytes = 1e9
	for _, tc := range []struct {
		degree int
		want   float64
	}{
		{1, 0},
		{2, nvlink.Latency + bytes*1/2/nvlink.Bandwidth},
		{8, nvlink.Latency + bytes*7/8/nvlink.Bandwidth},
		{16, max(nvlink.Latency+bytes*7/16/nvlink.Bandwidth, ib.Latency+bytes*8/16/ib.Bandwidth)},
		{64, max(nvlink.Latency+bytes*7/64/nvlink.Bandwidth, ib.Latency+bytes*56/64/ib.Bandwidth)},
	} {
		ep := ExpertParallel{Degree: tc.degree, GPUsPerNode: 8, IntraNode: nvlink, InterNode: ib}
		if got := ep.AllToAllTime(bytes); got != tc.want {
			t.Errorf("degree %d: %v s, want %v", tc.degree, got, tc.want)
		}
	}
}

// TestExpertParallelGPUModel prices Qwen3-30B-A3B on one stage with and
// without expert parallelism over 8 GPUs of a node: the forward and the
// input-gradient backward each gain 2 all-to-alls of t·b·k·h bf16 bytes
// per MoE layer (dispatch and combine), W gains nothing, the stage holds
// 1/8 of the routed experts, and an OVERLAP_F_B of two microbatches takes
// max(compute, all-to-all) instead of F + B.
func TestExpertParallelGPUModel(t *testing.T) {
	net, err := ReadHFConfig("testdata/hf/qwen3-30b-a3b.json")
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := LookupGPU("h100")
	nvlink, _ := LookupLink("nvlink")
	ib, _ := LookupLink("ib-ndr")
	base := GPUConfig{Network: net, GPU: gpu, Link: ib, Microbatch: 1, Sequence: 4096}
	ep := base
	ep.ExpertParallel = ExpertParallel{Degree: 8, GPUsPerNode: 8, IntraNode: nvlink, InterNode: ib}
	plain, err := NewGPUModel(base, 1)
	if err != nil {
		t.Fatal(err)
	}
	spread, err := NewGPUModel(ep, 1)
	if err != nil {
		t.Fatal(err)
	}
	a2a := 48 * 2 * ep.ExpertParallel.AllToAllTime(4096*1*8*2048*BytesPerElement)
	p, s := plain.Stage(0), spread.Stage(0)
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Abs(y) }
	if !near(s.TF, p.TF+a2a) || !near(s.TB, p.TB+a2a) || s.TW != p.TW {
		t.Errorf("stage times %+v, want %+v plus %v in F and in B", s, p, a2a)
	}
	routed := 48 * 128 * 3 * 2048 * 768.0
	if got, want := spread.Params(0), plain.Params(0)-routed*7/8; !near(got, want) {
		t.Errorf("params %v, want %v (1/8 of the routed experts)", got, want)
	}
	pair := pipeline.Action{Kind: pipeline.OverlapFB, Stage: 0, Microbatch: 1, BackStage: 0, BackMicrobatch: 0}
	compute := p.TF + p.TB + p.TW
	if got, want := spread.Compute(pair), max(compute, 2*a2a); !near(got, want) {
		t.Errorf("overlapped pair %v, want max(compute %v, all-to-all %v)", got, compute, 2*a2a)
	}
	if got := plain.Compute(pair); got != compute {
		t.Errorf("overlapped pair without expert parallelism %v, want F + B = %v", got, compute)
	}
}

// TestHFConfigLatestArchitectures checks the shapes read from the Qwen3,
// Qwen3-MoE and DeepSeek-V3 configs: DeepSeek-V3's three dense layers
// (first_k_dense_replace) and one MLA layer's parameters worked out by hand
// from DeepSeek-V3's projections (q 7168×1536 and 1536×128·192, kv
// 7168×(512+64) and 512×128·(128+128), output 128·128×7168, latent norms
// 1536 + 512); Qwen3-30B-A3B's attention of 32 heads of 128 on a hidden
// size of 2048 (q and o 2048×4096, k and v 2048×512); Qwen3-MoE's
// decoder_sparse_step and mlp_only_layers; and a list entry out of range
// refused with the field named.
func TestHFConfigLatestArchitectures(t *testing.T) {
	ds, err := ReadHFConfig("testdata/hf/deepseek-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.Describe(); got != "embedding, 3×decoder, 58×moe, head" {
		t.Errorf("deepseek-v3 blocks %q", got)
	}
	mla := 7168.0*1536 + 1536*128*192 + 1536 + 7168*(512+64) + 512*128*(128+128) + 512 + 128*128*7168
	if got := ds.Blocks[1].attentionParams(); got != mla {
		t.Errorf("deepseek-v3 MLA %v parameters, want %v", got, mla)
	}
	qw, err := ReadHFConfig("testdata/hf/qwen3-30b-a3b.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := qw.Blocks[1].attentionParams(), 2*2048.0*4096+2*2048*512; got != want {
		t.Errorf("qwen3-30b-a3b attention %v parameters, want %v", got, want)
	}
	cfg := func(extra string) []byte {
		return []byte(`{"model_type": "qwen3_moe", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 32,
			"num_key_value_heads": 2, "num_hidden_layers": 4, "intermediate_size": 128, "vocab_size": 100,
			"num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 16` + extra + `}`)
	}
	net, err := ParseHFConfig(cfg(`, "decoder_sparse_step": 2, "mlp_only_layers": [3]`), "q.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := net.Describe(); got != "embedding, decoder, moe, 2×decoder, head" {
		t.Errorf("sparse step 2, layer 3 dense: blocks %q", got)
	}
	if _, err := ParseHFConfig(cfg(`, "mlp_only_layers": [4]`), "q.json"); err == nil || !strings.Contains(err.Error(), `q.json: field "mlp_only_layers"`) {
		t.Errorf("layer 4 of 4: error %v, want one naming the file and the field", err)
	}
}

// TestExpertParallelRefused checks the groups the model refuses, each with
// what is wrong named: a degree that does not divide a layer's routed
// experts (Mixtral's 8 over 16 GPUs), a negative degree, and a group
// without its node size or links.
func TestExpertParallelRefused(t *testing.T) {
	net, err := ReadHFConfig("testdata/hf/mixtral-8x7b-v0.1.json")
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := LookupGPU("h100")
	link, _ := LookupLink("ib-ndr")
	for _, tc := range []struct {
		ep   ExpertParallel
		want string
	}{
		{ExpertParallelOn(16), "degree 16 does not divide the 8 routed experts"},
		{ExpertParallel{Degree: -2}, "degree -2 must not be negative"},
		{ExpertParallel{Degree: 4}, "needs the GPUs per node"},
		{ExpertParallel{Degree: 8, GPUsPerNode: 4, IntraNode: link}, "needs an inter-node link"},
	} {
		c := GPUConfig{Network: net, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048, ExpertParallel: tc.ep}
		if _, err := c.Layers(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.ep, err, tc.want)
		}
	}
	c := GPUConfig{Network: net, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048, ExpertParallel: ExpertParallelOn(8)}
	if _, err := c.Layers(); err != nil {
		t.Errorf("8 experts over 8 GPUs: %v", err)
	}
}
