package cost

import (
	"fmt"
	"slices"
	"strings"
)

// GPU is an accelerator as the timing model sees it.
type GPU struct {
	Name string
	// PeakFLOPS is the dense bf16 tensor-core peak, FLOP/s (no sparsity).
	PeakFLOPS float64
	// MemoryBytes is the device memory, bytes (datasheet GB, 10⁹ bytes).
	MemoryBytes float64
	// MemoryBandwidth is the device memory's bandwidth, bytes per
	// second: what element-wise work and the optimizer step run at.
	MemoryBandwidth float64
	Source          string
}

// Link is the interconnect between two pipeline ranks.
type Link struct {
	Name string
	// Latency is the time of a zero-byte message, seconds.
	Latency float64
	// Bandwidth is one direction's bandwidth, bytes per second.
	Bandwidth float64
	// P2PBandwidth is what a point-to-point transfer (NCCL's send and
	// receive) achieves on the link, bytes per second, at most Bandwidth;
	// zero means Bandwidth.
	P2PBandwidth float64
	// CollectiveBandwidth is what NCCL's ring collectives (all-reduce,
	// reduce-scatter, all-gather) achieve on the link, bytes per second,
	// at most Bandwidth: the bus bandwidth nccl-tests reports, against
	// which a ring all-reduce of S bytes among n ranks takes
	// 2(n-1)/n · S / CollectiveBandwidth (RingAllReduce). Zero means
	// Bandwidth.
	CollectiveBandwidth float64
	// P2POverhead is what a point-to-point transfer costs beyond the
	// link's latency and its bytes, seconds: the framework's launch,
	// handshake and synchronisation of a blocking send and receive
	// (link.go); zero means none.
	P2POverhead float64
	Source      string
}

// The GPU presets. Peaks are the datasheets' dense bf16 tensor-core
// figures (the datasheets print twice these "with sparsity").
var gpus = []GPU{
	{Name: "a100", PeakFLOPS: 312e12, MemoryBytes: 80e9, MemoryBandwidth: 2039e9,
		Source: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): BF16 312 TFLOPS dense, 80GB HBM2e at 2,039 GB/s"},
	{Name: "h100", PeakFLOPS: 989e12, MemoryBytes: 80e9, MemoryBandwidth: 3.35e12,
		Source: "NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 TFLOPS with sparsity, so 989 dense; 80GB HBM3 at 3.35 TB/s"},
	{Name: "h200", PeakFLOPS: 989e12, MemoryBytes: 141e9, MemoryBandwidth: 4.8e12,
		Source: "NVIDIA H200 Tensor Core GPU datasheet (SXM): BF16 1,979 TFLOPS with sparsity, so 989 dense; 141GB HBM3e at 4.8 TB/s"},
}

// The link presets. Bandwidths are per direction from the datasheets;
// latencies are not on datasheets: they are the order of magnitude of a
// small NCCL point-to-point message on such a link, an assumption stated
// in docs/presets.md.
var links = []Link{
	{Name: "nvlink", Latency: 3e-6, Bandwidth: 450e9,
		Source: "NVIDIA H100 datasheet: fourth-generation NVLink 900 GB/s total, 450 GB/s each direction; latency assumed 3 µs"},
	{Name: "pcie", Latency: 10e-6, Bandwidth: 32e9,
		Source: "PCI Express 4.0 x16: 16 GT/s × 16 lanes, 128b/130b coding, about 32 GB/s each direction; latency assumed 10 µs"},
	{Name: "ib-ndr", Latency: 5e-6, Bandwidth: 50e9,
		Source: "NVIDIA ConnectX-7 / Quantum-2 InfiniBand NDR: 400 Gb/s per port = 50 GB/s each direction; latency assumed 5 µs"},
	{Name: "nvlink3", Latency: 3e-6, Bandwidth: 300e9, CollectiveBandwidth: 230e9,
		Source: "NVIDIA A100 datasheet (SXM4): third-generation NVLink 600 GB/s total, 300 GB/s each direction; latency assumed 3 µs; " +
			"NCCL's collectives reach a bus bandwidth of about 230 GB/s on 8 A100 SXM (12 NVLinks of 25 GB/s line rate, about 20 GB/s each " +
			"after the 128-byte payload, less other limits: NCCL's maintainer in github.com/NVIDIA/nccl-tests/issues/149; 232.5 GB/s measured " +
			"with all_reduce_perf on one node of 8 in nccl-tests/issues/175)"},
	{Name: "ib-hdr", Latency: 5e-6, Bandwidth: 25e9,
		Source: "NVIDIA DGX A100 datasheet (Selene's nodes): 8 single-port ConnectX-6 HDR InfiniBand at 200 Gb/s, one a GPU, " +
			"so 25 GB/s each direction per GPU; latency assumed 5 µs"},
}

// transformer builds an embedding, n identical decoder layers and a head.
func transformer(name, source string, layers, hidden, heads, kvHeads, ffn, vocab int, gated bool) Network {
	return Network{Name: name, Source: source, Blocks: []Block{
		{Kind: Embedding, Count: 1, Hidden: hidden, Vocab: vocab},
		{Kind: Decoder, Count: layers, Hidden: hidden, Heads: heads, KVHeads: kvHeads, FFN: ffn, Gated: gated},
		{Kind: Head, Count: 1, Hidden: hidden, Vocab: vocab},
	}}
}

// The model presets.
var models = []Network{
	transformer("gpt-1.3b", "GPT-3 XL (Brown et al., arXiv 2005.14165, Table 2.1): 24 layers, d_model 2048, d_ffn 4·2048, "+
		"GPT-2 vocabulary 50257; 16 heads of 128 as Megatron-LM's 1.3B configuration (the table's 24 heads × 128 ≠ 2048)",
		24, 2048, 16, 0, 8192, 50257, false),
	transformer("llama-7b", "LLaMA (Touvron et al., arXiv 2302.13971, Table 2) and the huggyllama/llama-7b config: "+
		"32 layers, hidden 4096, 32 heads, SwiGLU width 11008, vocabulary 32000, untied head",
		32, 4096, 32, 0, 11008, 32000, true),
	transformer("llama-13b", "LLaMA (arXiv 2302.13971, Table 2) and the llama-2-13b config: 40 layers, hidden 5120, 40 heads, "+
		"SwiGLU width 13824, vocabulary 32000",
		40, 5120, 40, 0, 13824, 32000, true),
	transformer("llama-70b", "Llama 2 (Touvron et al., arXiv 2307.09288) and the Llama-2-70b config: 80 layers, hidden 8192, "+
		"64 heads, 8 key/value heads (GQA), SwiGLU width 28672, vocabulary 32000",
		80, 8192, 64, 8, 28672, 32000, true),
	vlm7b,
	deepseekMoE16b,
}

// vlm7b is LLaVA-1.5-7B: a CLIP ViT-L/14 encoder at 336 px (577 patch
// tokens with the class token, 24 layers of hidden 1024, 16 heads, GELU
// MLP 4096), a two-layer GELU projector 1024→4096→4096 over the 576 patch
// tokens, and a Vicuna-7B (LLaMA-7B) decoder over the training sequence,
// which holds the image tokens.
var vlm7b = Network{Name: "vlm-7b",
	Source: "LLaVA-1.5 (Liu et al., arXiv 2310.03744) and the llava-hf/llava-1.5-7b-hf config: " +
		"CLIP ViT-L/14-336 (Radford et al., arXiv 2103.00020), mlp2x_gelu projector, Vicuna-7B decoder",
	Blocks: []Block{
		{Kind: VisionEmbedding, Count: 1, Hidden: 1024, In: 3 * 14 * 14, Tokens: 577},
		{Kind: VisionEncoder, Count: 24, Hidden: 1024, Heads: 16, FFN: 4096, Tokens: 577},
		{Kind: Projector, Count: 1, Hidden: 4096, In: 1024, Tokens: 576},
		{Kind: Embedding, Count: 1, Hidden: 4096, Vocab: 32000},
		{Kind: Decoder, Count: 32, Hidden: 4096, Heads: 32, FFN: 11008, Gated: true},
		{Kind: Head, Count: 1, Hidden: 4096, Vocab: 32000},
	}}

// deepseekMoE16b is DeepSeekMoE 16B: one dense layer, then 27 MoE layers
// of 64 routed experts (top 6) and 2 shared experts, each a SwiGLU of
// width 1408, and a large vocabulary, so its head weighs like several
// layers. Experts are taken to live on the stage's own GPU (no expert
// parallelism, no all-to-all).
var deepseekMoE16b = Network{Name: "deepseek-moe-16b",
	Source: "DeepSeekMoE (Dai et al., arXiv 2401.06066) and the deepseek-ai/deepseek-moe-16b-base config: " +
		"28 layers, hidden 2048, 16 heads, first layer dense (SwiGLU 10944), then 64 routed experts top-6 + 2 shared " +
		"of width 1408, vocabulary 102400",
	Blocks: []Block{
		{Kind: Embedding, Count: 1, Hidden: 2048, Vocab: 102400},
		{Kind: Decoder, Count: 1, Hidden: 2048, Heads: 16, FFN: 10944, Gated: true},
		{Kind: MoE, Count: 27, Hidden: 2048, Heads: 16, FFN: 1408, Gated: true, Experts: 64, Active: 6, Shared: 2},
		{Kind: Head, Count: 1, Hidden: 2048, Vocab: 102400},
	}}

// GPUs returns the GPU presets.
func GPUs() []GPU { return slices.Clone(gpus) }

// Links returns the link presets.
func Links() []Link { return slices.Clone(links) }

// Models returns the model presets.
func Networks() []Network {
	out := make([]Network, len(models))
	for i, m := range models {
		out[i] = m.clone()
	}
	return out
}

// LookupGPU returns the GPU preset with the given name.
func LookupGPU(name string) (GPU, error) {
	return lookup("GPU", name, gpus, func(g GPU) string { return g.Name })
}

// LookupLink returns the link preset with the given name.
func LookupLink(name string) (Link, error) {
	return lookup("link", name, links, func(l Link) string { return l.Name })
}

// LookupNetwork returns the model preset with the given name.
func LookupNetwork(name string) (Network, error) {
	m, err := lookup("model", name, models, func(m Network) string { return m.Name })
	return m.clone(), err
}

// clone copies the blocks so that callers cannot change a preset.
func (m Network) clone() Network {
	m.Blocks = slices.Clone(m.Blocks)
	return m
}

func lookup[T any](what, name string, list []T, nameOf func(T) string) (T, error) {
	names := make([]string, len(list))
	for i, x := range list {
		if nameOf(x) == name {
			return x, nil
		}
		names[i] = nameOf(x)
	}
	var zero T
	return zero, fmt.Errorf("cost: unknown %s preset %q (known: %s)", what, name, strings.Join(names, ", "))
}
