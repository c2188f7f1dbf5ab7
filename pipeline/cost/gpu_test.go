package cost

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// decoderOnly is n GPT-style layers (4h GELU MLP, full attention) with no
// embedding or head, so a stage's cost is its layers' and nothing else.
func decoderOnly(n, h, heads int) Network {
	return Network{Name: "decoder-only", Blocks: []Block{{Kind: Decoder, Count: n, Hidden: h, Heads: heads, FFN: 4 * h}}}
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Abs(want) }

func TestTransformerLayerFLOPs(t *testing.T) {
	// Zero Bubble paper (arXiv 2401.10241) per layer: F = sbh(24h + 4s),
	// B = sbh(24h + 8s), W = 24sbh²; Korthikanti et al. activations
	// sb(34h + 5as). The first row by hand, s = h = 2048, b = 1, a = 16:
	//   F = 2048·2048·(24·2048 + 4·2048) = 4194304·57344 = 240518168576
	//   B = 4194304·(49152 + 16384) = 4194304·65536 = 274877906944
	//   W = 24·2048·2048² = 24·8589934592 = 206158430208
	//   activations = 2048·(34·2048 + 5·16·2048) = 4194304·114 = 478150656
	tests := []struct {
		b, s, h, a        int
		f, bIn, w, memory float64
	}{
		{1, 2048, 2048, 16, 240518168576, 274877906944, 206158430208, 478150656},
		// The closed forms at a second point, b = 2, s = 1024, h = 4096, a = 32.
		{2, 1024, 4096, 32,
			1024 * 2 * 4096 * (24*4096 + 4*1024), 1024 * 2 * 4096 * (24*4096 + 8*1024),
			24 * 1024 * 2 * 4096 * 4096, 1024 * 2 * (34*4096 + 5*32*1024)},
	}
	for _, tt := range tests {
		layers, err := decoderOnly(1, tt.h, tt.a).Layers(tt.b, tt.s)
		if err != nil {
			t.Fatal(err)
		}
		l := layers[0]
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"F", l.Forward, tt.f}, {"B", l.BackwardInput, tt.bIn}, {"W", l.BackwardWeight, tt.w}, {"activation bytes", l.Activation, tt.memory}} {
			if !near(c.got, c.want) {
				t.Errorf("b=%d s=%d h=%d: %s = %.0f, want %.0f", tt.b, tt.s, tt.h, c.name, c.got, c.want)
			}
		}
	}
}

func TestGPUTimeIsFLOPsOverThroughput(t *testing.T) {
	a100, err := LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	link, _ := LookupLink("nvlink")
	const b, s, h, heads = 1, 2048, 2048, 16
	for _, eff := range []float64{0, 0.4} {
		c := GPUConfig{Network: decoderOnly(4, h, heads), GPU: a100, Link: link, Microbatch: b, Sequence: s, Efficiency: eff}
		g, err := NewGPUModel(c, 2)
		if err != nil {
			t.Fatal(err)
		}
		achieved := 312e12 * eff // A100 datasheet bf16 dense peak
		if eff == 0 {
			achieved = 312e12 * DefaultEfficiency
		}
		// Two layers per stage.
		f := 2.0 * s * b * h * (24*h + 4*s) / achieved
		bIn := 2.0 * s * b * h * (24*h + 8*s) / achieved
		w := 2.0 * 24 * s * b * h * h / achieved
		for stage := range 2 {
			tests := []struct {
				a    pipeline.Action
				want float64
			}{
				{pipeline.F(stage, 0), f},
				{pipeline.I(stage, 0), bIn},
				{pipeline.W(stage, 0), w},
				{pipeline.B(stage, 0), bIn + w}, // unsplit B = T_B + T_W
			}
			for _, tt := range tests {
				if got := g.Compute(tt.a); !near(got, tt.want) {
					t.Errorf("efficiency %g: Compute(%v) = %g s, want %g s", eff, tt.a, got, tt.want)
				}
			}
		}
	}
}

func TestGPUTransfer(t *testing.T) {
	gpu, _ := LookupGPU("h100")
	ib, err := LookupLink("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	const b, s, h = 2, 1024, 4096
	g, err := NewGPUModel(GPUConfig{Network: decoderOnly(3, h, 32), GPU: gpu, Link: ib, Microbatch: b, Sequence: s}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// s·b·h bf16 elements = 1024·2·4096·2 = 16777216 bytes; NDR moves
	// 50e9 bytes/s after 5 µs of latency: 5e-6 + 16777216/50e9 s.
	want := 5e-6 + 16777216/50e9
	tests := []struct {
		a        pipeline.Action
		from, to int
		want     float64
	}{
		{pipeline.Act(pipeline.SendF, 0, 0), 0, 1, want},
		{pipeline.Act(pipeline.RecvF, 1, 0), 0, 1, want},
		{pipeline.Act(pipeline.SendB, 2, 0), 2, 1, want},
		{pipeline.Act(pipeline.RecvB, 1, 0), 2, 1, want},
		{pipeline.F(1, 0), 1, 2, want},
		{pipeline.Act(pipeline.SendF, 0, 0), 1, 1, 0}, // one rank: no transfer
	}
	for _, tt := range tests {
		if got := g.Transfer(tt.a, tt.from, tt.to); !near(got, tt.want) {
			t.Errorf("Transfer(%v, %d, %d) = %g s, want %g s", tt.a, tt.from, tt.to, got, tt.want)
		}
	}
}

func TestGPUMemoryPerStage(t *testing.T) {
	gpu, _ := LookupGPU("h100")
	link, _ := LookupLink("nvlink")
	llama, err := LookupNetwork("llama-7b")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGPUModel(GPUConfig{Network: llama, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Megatron split of 32 layers over 4 stages: 8 each, the embedding on
	// the first stage and the head on the last.
	if got := g.Partition(); !equalInts(got, []int{9, 8, 8, 9}) {
		t.Fatalf("partition %v, want [9 8 8 9]", got)
	}
	// Independent sum: a LLaMA layer holds 4h² attention weights, 3h·f
	// SwiGLU weights and two norms of h; the embedding and the untied head
	// V·h each, the final norm h. ZeRO's mixed-precision Adam keeps 16
	// bytes per parameter.
	const h, f, v = 4096.0, 11008.0, 32000.0
	layer := 4*h*h + 3*h*f + 2*h
	want := []float64{v*h + 8*layer, 8 * layer, 8 * layer, 8*layer + v*h + h}
	total := 0.0
	for s, p := range want {
		if got := g.StaticBytes(s); !near(got, 16*p) {
			t.Errorf("stage %d static bytes = %.0f, want 16·%.0f", s, got, p)
		}
		total += g.Params(s)
	}
	// The Hugging Face count of LLaMA-7B's parameters.
	if total != 6738415616 {
		t.Errorf("parameters over all stages = %.0f, want 6738415616", total)
	}

	gpt, _ := LookupNetwork("gpt-1.3b")
	g, err = NewGPUModel(GPUConfig{Network: gpt, GPU: gpu, Link: link, Microbatch: 2, Sequence: 1024}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// GPT layers are Korthikanti's: sb(34h + 5as) bytes each; stage 1
	// holds 6 layers, stage 3 six and the head (final-norm and projection
	// inputs 4sbh, fp32 logits 4sbv).
	const s, b, hg, a, vg = 1024.0, 2.0, 2048.0, 16.0, 50257.0
	perLayer := s * b * (34*hg + 5*a*s)
	if got := g.ActivationBytes(1); !near(got, 6*perLayer) {
		t.Errorf("stage 1 activation bytes = %.0f, want %.0f", got, 6*perLayer)
	}
	if got, want := g.ActivationBytes(3), 6*perLayer+4*s*b*hg+4*s*b*vg; !near(got, want) {
		t.Errorf("stage 3 activation bytes = %.0f, want %.0f", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGPUModelPartition(t *testing.T) {
	gpu, _ := LookupGPU("a100")
	link, _ := LookupLink("pcie")
	c := GPUConfig{Network: decoderOnly(6, 1024, 8), GPU: gpu, Link: link, Microbatch: 1, Sequence: 512}
	g, err := NewGPUModelPartition(c, []int{1, 5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Stage(1).TF, 5*g.Stage(0).TF; !near(got, want) {
		t.Errorf("5-layer stage forward %g, want 5 × the 1-layer stage's = %g", got, want)
	}
	bad := []struct {
		name string
		part []int
	}{
		{"empty stage", []int{0, 6}},
		{"too few layers", []int{2, 3}},
		{"too many layers", []int{4, 4}},
		{"no stages", nil},
	}
	for _, tt := range bad {
		if _, err := NewGPUModelPartition(c, tt.part); err == nil {
			t.Errorf("%s: partition %v accepted", tt.name, tt.part)
		}
	}
	if _, err := NewGPUModel(c, 7); err == nil {
		t.Error("6 layers over 7 stages accepted")
	}
	if got := g.Compute(pipeline.F(2, 0)); !math.IsNaN(got) {
		t.Errorf("forward of a stage the model lacks = %g, want NaN", got)
	}
	c.Efficiency = 1.5
	if _, err := NewGPUModel(c, 2); err == nil {
		t.Error("efficiency 1.5 accepted")
	}
}

func TestEvenPartition(t *testing.T) {
	emb, dec, head := Layer{Kind: Embedding}, Layer{Kind: Decoder}, Layer{Kind: Head}
	model := func(n int) []Layer {
		ls := []Layer{emb}
		for range n {
			ls = append(ls, dec)
		}
		return append(ls, head)
	}
	tests := []struct {
		layers []Layer
		stages int
		want   []int
	}{
		{model(8), 4, []int{3, 2, 2, 3}},
		{model(10), 4, []int{4, 3, 2, 3}},
		{model(4), 1, []int{6}},
		{[]Layer{dec, dec, dec}, 3, []int{1, 1, 1}},
	}
	for _, tt := range tests {
		got, err := EvenPartition(tt.layers, tt.stages)
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(got, tt.want) {
			t.Errorf("EvenPartition(%d layers, %d stages) = %v, want %v", len(tt.layers), tt.stages, got, tt.want)
		}
	}
}

// FlashAttention (Dao et al., arXiv 2205.14135, 2307.08691) keeps no
// attention scores, only each head's fp32 log-sum-exp, and recomputes the
// scores QKᵀ in the backward. Per GPT layer: F = sbh(24h + 4s) as before,
// B = sbh(24h + 8s) + 2s²bh = sbh(24h + 10s), W = 24sbh², activations
// sb(34h + 5as) - 5as²b + 4asb = sb(34h + 4a), M_W 32sbh unchanged. By
// hand at s = h = 2048, b = 1, a = 16:
//
//	B = 4194304·(49152 + 20480) = 292057776128
//	activations = 2048·(34·2048 + 64) = 142737408
func TestTransformerLayerFlashAttention(t *testing.T) {
	const b, s, h, a = 1, 2048, 2048, 16
	plain, err := decoderOnly(1, h, a).Layers(b, s)
	if err != nil {
		t.Fatal(err)
	}
	flash, err := decoderOnly(1, h, a).LayersFlash(b, s)
	if err != nil {
		t.Fatal(err)
	}
	p, f := plain[0], flash[0]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"F", f.Forward, p.Forward},
		{"B", f.BackwardInput, 292057776128},
		{"W", f.BackwardWeight, p.BackwardWeight},
		{"activation bytes", f.Activation, 142737408},
		{"M_W", f.WeightGrad, 32 * s * b * h},
		{"params", f.Params, p.Params},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.0f, want %.0f", c.name, c.got, c.want)
		}
	}
}

// GPUConfig.FlashAttention prices every stage from LayersFlash: a stage's
// activation bytes are the sum of its layers' and its input-gradient time
// their FLOPs over the throughput.
func TestGPUModelFlashAttention(t *testing.T) {
	cfg := presetConfig(t, "llama-7b", "h100", "ib-ndr")
	cfg.FlashAttention = true
	g, err := NewGPUModel(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := cfg.Network.LayersFlash(1, 2048)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for st, n := range g.Partition() {
		var act, bIn float64
		for _, l := range layers[next : next+n] {
			act += l.Activation
			bIn += l.BackwardInput
		}
		next += n
		if !near(g.ActivationBytes(st), act) {
			t.Errorf("stage %d: %v activation bytes, want %v", st, g.ActivationBytes(st), act)
		}
		if !near(g.Stage(st).TB, bIn/cfg.Throughput()) {
			t.Errorf("stage %d: T_B %v, want %v", st, g.Stage(st).TB, bIn/cfg.Throughput())
		}
	}
}
