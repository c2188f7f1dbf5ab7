package cost_test

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

func ExampleExplicit() {
	cost := cost.Explicit{TF: 1, TB: 1, TW: 1, Comm: 0.5}
	fmt.Println(cost.Compute(pipeline.F(0, 0)), cost.Compute(pipeline.B(0, 0)), cost.Compute(pipeline.W(0, 0)))
	fmt.Println(cost.Transfer(pipeline.Act(pipeline.SendF, 0, 0), 0, 1))
	// Output:
	// 1 2 1
	// 0.5
}

func ExampleNewGPUModel() {
	model, _ := cost.LookupNetwork("llama-7b")
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for s := range g.Stages() {
		c := g.Stage(s)
		fmt.Printf("stage %d: %v layers, F %.2f ms, B %.2f ms, W %.2f ms, static %.1f GB, activations %.2f GB per microbatch\n",
			s, g.Partition()[s], 1e3*c.TF, 1e3*c.TB, 1e3*c.TW, g.StaticBytes(s)/1e9, g.ActivationBytes(s)/1e9)
	}
	fmt.Printf("send F: %.1f µs\n", 1e6*g.Transfer(pipeline.Act(pipeline.SendF, 0, 0), 0, 1))
	// By hand for stage 1: a LLaMA-7B layer at s = 2048 does
	// 2·2048·(4·4096² + 3·4096·11008) + 4·2048²·4096 ≈ 897 GFLOP forward,
	// eight of them at 989e12 × 0.5 FLOP/s take 14.5 ms; a message is
	// 2048·4096·2 bytes over 50 GB/s plus 5 µs.
	// Output:
	// stage 0: 9 layers, F 14.52 ms, B 15.63 ms, W 13.41 ms, static 28.0 GB, activations 7.66 GB per microbatch
	// stage 1: 8 layers, F 14.52 ms, B 15.63 ms, W 13.41 ms, static 25.9 GB, activations 7.66 GB per microbatch
	// stage 2: 8 layers, F 14.52 ms, B 15.63 ms, W 13.41 ms, static 25.9 GB, activations 7.66 GB per microbatch
	// stage 3: 9 layers, F 15.61 ms, B 16.72 ms, W 14.50 ms, static 28.0 GB, activations 7.95 GB per microbatch
	// send F: 340.5 µs
}

func ExampleLookupNetwork() {
	m, err := cost.LookupNetwork("vlm-7b")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Describe())
	fmt.Printf("%d layers, %.2fB parameters\n", m.LayerCount(), m.Params()/1e9)
	_, err = cost.LookupNetwork("gpt-5")
	fmt.Println(err)
	// Output:
	// vision-embedding, 24×vision-encoder, projector, embedding, 32×decoder, head
	// 60 layers, 7.06B parameters
	// cost: unknown model preset "gpt-5" (known: gpt-1.3b, llama-7b, llama-13b, llama-70b, vlm-7b, deepseek-moe-16b)
}

func ExampleReadHFConfig() {
	n, err := cost.ReadHFConfig(filepath.Join("testdata", "hf", "mixtral-8x7b-v0.1.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Describe())
	fmt.Printf("%.2fB parameters\n", n.Params()/1e9)
	_, err = cost.ParseHFConfig([]byte(`{"model_type": "t5"}`), "t5/config.json")
	fmt.Println(err)
	// Output:
	// embedding, 32×moe, head
	// 46.70B parameters
	// t5/config.json: field "model_type": architecture "t5" is not supported (known: llama, mistral, qwen2, qwen3, gpt2, gpt_neox, mixtral, deepseek, qwen3_moe, deepseek_v3)
}

func ExampleParseHardware() {
	file := `gpu: {name: a100-40g, peak_flops: 312e12, efficiency: 0.45, memory_bytes: 40e9}
link: {name: nvlink3, latency: 3e-6, bandwidth: 300e9}
ranks_per_node: 8
inter_node_link: {name: roce, latency: 8e-6, bandwidth: 25e9}
`
	h, err := cost.ParseHardware([]byte(file), "cluster.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := h.Apply(cost.GPUConfig{})
	fmt.Println(cfg.LinkBetween(6, 7).Name, cfg.LinkBetween(7, 8).Name, cfg.Throughput()/1e12)
	_, err = cost.ParseHardware([]byte("gpu: {name: g, peak_flops: -1, memory_bytes: 4e10}\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// nvlink3 roce 140.4
	// bad.yaml:1: gpu.peak_flops: must be positive, got -1
}

func ExampleParseCostsCSV() {
	file := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,18.5,18.1,9.3,0.6\n1,18.5,18.1,9.3,\n"
	m, err := cost.ParseCostsCSV([]byte(file), "costs.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	tab, _ := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 2})
	e, _ := m.ForTable(tab)
	fmt.Printf("B on stage 1: %.1f ms, a message: %.1f ms\n", 1e3*e.Compute(pipeline.B(1, 0)), 1e3*e.Transfer(pipeline.Act(pipeline.SendF, 0, 0), 0, 1))
	// Output:
	// B on stage 1: 27.4 ms, a message: 0.6 ms
}

func ExampleReadProfile() {
	m, err := cost.ReadProfile(filepath.Join("testdata", "profile", "rank0.json"), filepath.Join("testdata", "profile", "rank1.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for s, st := range m.Stages {
		fmt.Printf("stage %d: F %.2f ms, B %.2f ms, W %.2f ms\n", s, 1e3*st.TF, 1e3*st.TB, 1e3*st.TW)
	}
	fmt.Printf("transfer: %.2f ms\n", 1e3*m.Comm[0])
	// Output:
	// stage 0: F 1.50 ms, B 1.45 ms, W 0.90 ms
	// stage 1: F 1.50 ms, B 1.45 ms, W 0.90 ms
	// transfer: 0.11 ms
}

func ExampleWriteHardwarePresets() {
	var b strings.Builder
	if err := cost.WriteHardwarePresets(&b); err != nil {
		fmt.Println(err)
		return
	}
	gpus, links, err := cost.ParseHardwarePresets([]byte(b.String()), "presets.yaml")
	fmt.Println(len(gpus), len(links), gpus[0].Name, links[0].Name, err)
	// Output:
	// 3 5 a100 nvlink <nil>
}

// SC21 Table 1's 18.4B GPT on 256 A100s: each stage split 8 ways inside a
// node, 32 data-parallel replicas across nodes, full recomputation; one
// step of 4 microbatches of 8 samples on the one pipeline stage, and its
// FLOP/s per GPU as Narayanan et al. count them.
func ExampleGPUModel_Iteration() {
	a100, _ := cost.LookupGPU("a100")
	nv, _ := cost.LookupLink("nvlink3")
	ib, _ := cost.LookupLink("ib-hdr")
	net := cost.Network{Name: "gpt-18.4b", Blocks: []cost.Block{
		{Kind: cost.Embedding, Count: 1, Hidden: 6144, Vocab: 51200, Positions: 2048},
		{Kind: cost.Decoder, Count: 40, Hidden: 6144, Heads: 48, FFN: 4 * 6144, Bias: true},
		{Kind: cost.Head, Count: 1, Hidden: 6144, Vocab: 51200, Bias: true, Tied: true},
	}}
	cfg := cost.GPUConfig{Network: net, GPU: a100, Link: nv, InterNode: ib, RanksPerNode: 8,
		Microbatch: 8, Sequence: 2048, Efficiency: 0.6,
		Parallel: cost.Parallelism{Tensor: 8, Data: 32, Recompute: cost.RecomputeFull, OverlapGradReduce: true}}
	g, err := cost.NewGPUModel(cfg, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 1, Microbatches: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := g.Stage(0)
	makespan := 4 * (st.TF + st.TB + st.TW) // one stage: the microbatches back to back
	it, err := g.Iteration(tab, makespan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("step %.2f s on %d GPUs, %.0f TFLOP/s per GPU\n", it.Seconds, it.GPUs, it.ModelFLOPsPerGPU/1e12)
	// Output:
	// step 8.33 s on 256 GPUs, 152 TFLOP/s per GPU
}

// One transformer layer of Korthikanti et al.'s 22B (hidden 6144, 64
// heads) on one of its 8 tensor-parallel GPUs: with the backward's
// all-reduces under the weight gradients, a full backward B is shorter,
// while the split input gradient I keeps its time.
func ExampleParallelism_asyncTensorAllReduce() {
	a100, _ := cost.LookupGPU("a100")
	nv, _ := cost.LookupLink("nvlink3")
	layer := cost.Network{Name: "gpt-22b-layer", Blocks: []cost.Block{
		{Kind: cost.Decoder, Count: 1, Hidden: 6144, Heads: 64, FFN: 4 * 6144, Bias: true}}}
	for _, async := range []bool{false, true} {
		cfg := cost.GPUConfig{Network: layer, GPU: a100, Link: nv, Microbatch: 4, Sequence: 2048, Efficiency: 0.6,
			Parallel: cost.Parallelism{Tensor: 8, AsyncTensorAllReduce: async}}
		g, err := cost.NewGPUModel(cfg, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		b := g.Compute(pipeline.Action{Kind: pipeline.Backward, Stage: 0})
		i := g.Compute(pipeline.Action{Kind: pipeline.BackwardInput, Stage: 0})
		fmt.Printf("async %v: B %.2f ms, I %.2f ms\n", async, 1e3*b, 1e3*i)
	}
	// Output:
	// async false: B 12.08 ms, I 7.12 ms
	// async true: B 10.46 ms, I 7.12 ms
}

// A transfer's point-to-point price: the 28.3 MB activation of the Zero
// Bubble paper's 1.5B model over NVLink 3, first at the datasheet's
// bandwidth, then at NCCL's measured send/receive bandwidth with the
// blocking transfer's overhead that docs/validation.md calibrates.
func ExampleLink_PointToPoint() {
	const bytes = 1024 * 6 * 2304 * 2 // s·b·h bf16 values
	l := cost.Link{Name: "nvlink3", Latency: 3e-6, Bandwidth: 300e9}
	fmt.Printf("datasheet: %.3f ms\n", 1e3*l.PointToPoint(bytes))
	l.P2PBandwidth, l.P2POverhead = 72e9, 0.2048e-3
	fmt.Printf("NCCL send/receive, blocking: %.3f ms\n", 1e3*l.PointToPoint(bytes))
	// Output:
	// datasheet: 0.097 ms
	// NCCL send/receive, blocking: 0.601 ms
}

// One tensor-parallel all-reduce of a 22B layer's output (8 × 2048 tokens
// × 6144 bf16 values, 201 MB) among the 8 GPUs of a DGX A100 node: at the
// datasheet's NVLink 3 bandwidth, then at the bus bandwidth NCCL's ring
// reaches, the nvlink3 preset's collective bandwidth.
func ExampleRingAllReduce() {
	nv, _ := cost.LookupLink("nvlink3")
	const bytes = 8 * 2048 * 6144 * 2
	datasheet := nv
	datasheet.CollectiveBandwidth = 0
	fmt.Printf("datasheet: %.3f ms\n", 1e3*cost.RingAllReduce(bytes, 8, datasheet))
	fmt.Printf("NCCL's bus bandwidth: %.3f ms\n", 1e3*cost.RingAllReduce(bytes, 8, nv))
	// Output:
	// datasheet: 1.216 ms
	// NCCL's bus bandwidth: 1.574 ms
}

// LLaMA-7B on 4 H100s: each rank's Adam step after the pipeline, 34 bytes
// of memory traffic a parameter it holds at 3.35 TB/s (no data
// parallelism, nothing to reduce); StepTail is the largest.
func ExampleGPUModel_RankStepTails() {
	model, _ := cost.LookupNetwork("llama-7b")
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, x := range g.RankStepTails(tab) {
		fmt.Printf("rank %d: %.1f ms\n", r, 1e3*x)
	}
	fmt.Printf("step tail: %.1f ms\n", 1e3*g.StepTail(tab))
	// Output:
	// rank 0: 17.8 ms
	// rank 1: 16.4 ms
	// rank 2: 16.4 ms
	// rank 3: 17.8 ms
	// step tail: 17.8 ms
}
