package cost

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// megatronGPT is a GPT of Megatron-LM's shape (4h MLP, biases, learned
// positions, tied head) with l layers of hidden h and a heads, vocabulary
// 51200: the models of Narayanan et al. (SC21) Table 1.
func megatronGPT(l, h, a int) Network {
	return Network{Name: "gpt", Blocks: []Block{
		{Kind: Embedding, Count: 1, Hidden: h, Vocab: 51200, Positions: 2048},
		{Kind: Decoder, Count: l, Hidden: h, Heads: a, FFN: 4 * h, Bias: true},
		{Kind: Head, Count: 1, Hidden: h, Vocab: 51200, Bias: true, Tied: true},
	}}
}

// clusterConfig is the GPT on A100s, nvlink3 inside nodes of 8 and ib-hdr
// between them, one 2048-token sample a microbatch.
func clusterConfig(t *testing.T, p Parallelism) GPUConfig {
	t.Helper()
	a100, err := LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	nv, err := LookupLink("nvlink3")
	if err != nil {
		t.Fatal(err)
	}
	ib, err := LookupLink("ib-hdr")
	if err != nil {
		t.Fatal(err)
	}
	return GPUConfig{Network: megatronGPT(4, 6144, 48), GPU: a100, Link: nv, RanksPerNode: 8, InterNode: ib,
		Microbatch: 1, Sequence: 2048, Efficiency: 0.5, Parallel: p}
}

// decoderOf returns the priced decoder layer of c (the model's second).
func decoderOf(t *testing.T, c GPUConfig) (Layer, gpuStage) {
	t.Helper()
	layers, err := c.Layers()
	if err != nil {
		t.Fatal(err)
	}
	return layers[1], c.priceLayer(layers[1])
}

// TestActivationUnderTensorParallelism checks one layer's activation bytes
// per GPU against Korthikanti et al. (arXiv 2205.05198) Table 2, with
// s = 2048, b = 1, h = 6144, a = 48, t = 8: sbh(10 + 24/t + 5as/(ht))
// with tensor parallelism, sbh(34/t + 5as/(ht)) with sequence parallelism
// too, sbh·34/t with selective recomputation on top, and 2sbh, or 2sbh/t
// with sequence parallelism, under full recomputation.
func TestActivationUnderTensorParallelism(t *testing.T) {
	const s, b, h, a, tp = 2048.0, 1.0, 6144.0, 48.0, 8.0
	sbh := s * b * h
	tests := []struct {
		name string
		p    Parallelism
		want float64
	}{
		{"tensor", Parallelism{Tensor: 8}, sbh * (10 + 24/tp + 5*a*s/(h*tp))},
		{"tensor+sequence", Parallelism{Tensor: 8, SequenceParallel: true}, sbh * (34/tp + 5*a*s/(h*tp))},
		{"tensor+sequence+selective", Parallelism{Tensor: 8, SequenceParallel: true, Recompute: RecomputeSelective}, sbh * 34 / tp},
		{"tensor+full", Parallelism{Tensor: 8, Recompute: RecomputeFull}, 2 * sbh},
		{"tensor+sequence+full", Parallelism{Tensor: 8, SequenceParallel: true, Recompute: RecomputeFull}, 2 * sbh / tp},
		{"none", Parallelism{}, sbh * (34 + 5*a*s/h)},
	}
	for _, tt := range tests {
		_, p := decoderOf(t, clusterConfig(t, tt.p))
		if math.Abs(p.activation-tt.want) > 1e-9*tt.want {
			t.Errorf("%s: %.6g bytes a layer, want %.6g", tt.name, p.activation, tt.want)
		}
		if p.weightGrad > p.activation {
			t.Errorf("%s: M_W %.6g above M_B %.6g", tt.name, p.weightGrad, p.activation)
		}
	}
}

// TestTimeUnderTensorParallelismAndRecomputation checks a decoder layer's
// times against their closed forms: the FLOPs split T ways at the achieved
// throughput, plus two ring all-reduces of the 2sbh-byte output on the
// node's link, 2·2(T-1)/T·2sbh/BW + 2·2(T-1)α with BW nvlink3's collective
// bandwidth, 230 GB/s, in the forward and in the
// input-gradient backward; full recomputation adds the whole forward to
// the backward, selective the attention core's 4s²bh/T FLOPs.
func TestTimeUnderTensorParallelismAndRecomputation(t *testing.T) {
	const s, h, tp = 2048.0, 6144.0, 8.0
	base := clusterConfig(t, Parallelism{Tensor: 8})
	l, p := decoderOf(t, base)
	rate := 0.5 * 312e12
	ar := 2*(tp-1)/tp*(2*s*h)/230e9 + 2*(tp-1)*3e-6
	wantF := l.Forward/tp/rate + 2*ar
	wantB := l.BackwardInput/tp/rate + 2*ar
	wantW := l.BackwardWeight / tp / rate
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"F", p.forward, wantF}, {"B", p.backwardInput, wantB}, {"W", p.weight, wantW}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("T=8: %s %.9g s, want %.9g", c.name, c.got, c.want)
		}
	}
	if l.Attention != 4*s*s*h {
		t.Errorf("attention core %g FLOPs, want 4s²bh = %g", l.Attention, 4*s*s*h)
	}
	full := base
	full.Parallel.Recompute = RecomputeFull
	if _, pf := decoderOf(t, full); math.Abs(pf.backwardInput-(wantB+wantF)) > 1e-12 {
		t.Errorf("full recomputation: B %.9g s, want B + F = %.9g", pf.backwardInput, wantB+wantF)
	}
	sel := base
	sel.Parallel.Recompute = RecomputeSelective
	if _, ps := decoderOf(t, sel); math.Abs(ps.backwardInput-(wantB+4*s*s*h/tp/rate)) > 1e-12 {
		t.Errorf("selective recomputation: B %.9g s, want B + 4s²bh/T/rate = %.9g", ps.backwardInput, wantB+4*s*s*h/tp/rate)
	}
}

// TestElementwisePasses checks that the element-wise work adds passes ×
// activation bytes / memory bandwidth to F and to B.
func TestElementwisePasses(t *testing.T) {
	c := clusterConfig(t, Parallelism{})
	_, p0 := decoderOf(t, c)
	c.Parallel.ElementwisePasses = 3
	_, p3 := decoderOf(t, c)
	want := 3 * p0.activation / 2039e9
	if math.Abs(p3.forward-p0.forward-want) > 1e-12 || math.Abs(p3.backwardInput-p0.backwardInput-want) > 1e-12 || p3.weight != p0.weight {
		t.Errorf("3 passes add F %.6g, B %.6g, W %.6g s; want %.6g, %.6g, 0", p3.forward-p0.forward, p3.backwardInput-p0.backwardInput, p3.weight-p0.weight, want, want)
	}
}

// TestIterationFLOPsIsEquationThree checks IterationFLOPs against
// Narayanan et al.'s equation 3, 96·B·s·l·h²·(1 + s/6h + V/16lh), for
// Table 1's 1T model (l 128, h 25600, batch 3072, s 2048, V 51200).
func TestIterationFLOPsIsEquationThree(t *testing.T) {
	c := clusterConfig(t, Parallelism{})
	c.Network = megatronGPT(128, 25600, 160)
	got, err := c.IterationFLOPs(3072)
	if err != nil {
		t.Fatal(err)
	}
	const B, s, l, h, V = 3072.0, 2048.0, 128.0, 25600.0, 51200.0
	want := 96 * B * s * l * h * h * (1 + s/(6*h) + V/(16*l*h))
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("IterationFLOPs %.6g, want equation 3's %.6g", got, want)
	}
}

// TestGradientSyncAndOptimizer checks the data-parallel reduction against
// a ring all-reduce of the stage shard's bf16 gradients (on ib-hdr when
// T·D exceeds the node's 8 GPUs, on nvlink3 otherwise, at its collective
// bandwidth of 230 GB/s) and the Adam step
// against AdamBytesPerParam per parameter at 2,039 GB/s.
func TestGradientSyncAndOptimizer(t *testing.T) {
	for _, tt := range []struct {
		p    Parallelism
		link Link
	}{
		{Parallelism{Tensor: 8, Data: 4}, Link{Latency: 5e-6, Bandwidth: 25e9}},
		{Parallelism{Tensor: 2, Data: 4}, Link{Latency: 3e-6, Bandwidth: 230e9}},
	} {
		g, err := NewGPUModel(clusterConfig(t, tt.p), 2)
		if err != nil {
			t.Fatal(err)
		}
		d := float64(tt.p.Data)
		bytes := g.Params(0) * 2
		want := 2*(d-1)/d*bytes/tt.link.Bandwidth + 2*(d-1)*tt.link.Latency
		if got := g.GradientSync(0); math.Abs(got-want) > 1e-12 {
			t.Errorf("T %d D %d: gradient sync %.9g s, want %.9g", tt.p.Tensor, tt.p.Data, got, want)
		}
		if got, want := g.OptimizerStep(0), g.Params(0)*34/2039e9; math.Abs(got-want) > 1e-15 {
			t.Errorf("optimizer step %.9g s, want %.9g", got, want)
		}
	}
}

// TestScatterGatherTransfer checks a transfer between stages on different
// nodes under T = 8: latency + (2sbh/8)/BW over ib-hdr, then a ring
// all-gather of 2sbh on nvlink3, 7/8·2sbh/BW + 7α at its collective
// bandwidth, 230 GB/s; with sequence
// parallelism no all-gather.
func TestScatterGatherTransfer(t *testing.T) {
	const bytes = 2 * 2048.0 * 6144
	c := clusterConfig(t, Parallelism{Tensor: 8})
	g, err := NewGPUModel(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := 5e-6 + bytes/8/25e9 + 7.0/8*bytes/230e9 + 7*3e-6
	if got := g.Transfer(pipeline.Act(pipeline.SendF, 0, 0), 0, 1); math.Abs(got-want) > 1e-12 {
		t.Errorf("transfer %.9g s, want %.9g", got, want)
	}
	c.Parallel.SequenceParallel = true
	if g, err = NewGPUModel(c, 2); err != nil {
		t.Fatal(err)
	}
	if got, want := g.Transfer(pipeline.Act(pipeline.SendF, 0, 0), 0, 1), 5e-6+bytes/8/25e9; math.Abs(got-want) > 1e-12 {
		t.Errorf("sequence parallel: transfer %.9g s, want %.9g", got, want)
	}
}

func TestParallelismRefused(t *testing.T) {
	for _, p := range []Parallelism{{Tensor: 16}, {Tensor: 3}, {Data: -1}, {ElementwisePasses: -1}} {
		if _, err := clusterConfig(t, p).Layers(); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if r, err := ParseRecompute("partial"); err == nil {
		t.Errorf("ParseRecompute(partial) = %v, want an error", r)
	}
}

// TestIteration checks one step of 1F1B on 2 stages, T 8, D 4: the
// makespan plus the slowest rank's gradient sync and Adam step, and
// equation 3's FLOPs over the 4 replicas' 8 microbatches, per second and
// per GPU of the 2·8·4 = 64.
func TestIteration(t *testing.T) {
	c := clusterConfig(t, Parallelism{Tensor: 8, Data: 4})
	g, err := NewGPUModel(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	it, err := g.Iteration(tab, 10)
	if err != nil {
		t.Fatal(err)
	}
	tail := max(g.GradientSync(0)+g.OptimizerStep(0), g.GradientSync(1)+g.OptimizerStep(1))
	flops, err := c.IterationFLOPs(8 * 4)
	if err != nil {
		t.Fatal(err)
	}
	if it.GPUs != 64 || math.Abs(it.Seconds-(10+tail)) > 1e-12 || math.Abs(it.ModelFLOPsPerGPU-flops/(10+tail)/64) > 1e-6 {
		t.Errorf("iteration %+v, want 64 GPUs, %g s, %g FLOP/s", it, 10+tail, flops/(10+tail)/64)
	}
}

// TestPostValidatedIteration checks the same step under post-validation:
// rank r is taken for its span plus its own sync and Adam step, and the
// step is the longest of these, max(10 + tail₀, 9 + tail₁) for spans 10
// and 9; rank 1 sets it when its span is long enough (spans 1 and 10).
// The FLOPs are the same as Iteration's; a span per rank is required.
func TestPostValidatedIteration(t *testing.T) {
	c := clusterConfig(t, Parallelism{Tensor: 8, Data: 4})
	g, err := NewGPUModel(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	tail0, tail1 := g.GradientSync(0)+g.OptimizerStep(0), g.GradientSync(1)+g.OptimizerStep(1)
	flops, err := c.IterationFLOPs(8 * 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spans []float64
		want  float64
	}{
		{[]float64{10, 9}, max(10+tail0, 9+tail1)},
		{[]float64{1, 10}, max(1+tail0, 10+tail1)},
	} {
		it, err := g.PostValidatedIteration(tab, tc.spans)
		if err != nil {
			t.Fatal(err)
		}
		if it.GPUs != 64 || math.Abs(it.Seconds-tc.want) > 1e-12 || math.Abs(it.ModelFLOPsPerGPU-flops/tc.want/64) > 1e-6 {
			t.Errorf("spans %v: iteration %+v, want 64 GPUs, %g s, %g FLOP/s", tc.spans, it, tc.want, flops/tc.want/64)
		}
	}
	if _, err := g.PostValidatedIteration(tab, []float64{10}); err == nil {
		t.Error("one span for two ranks: no error")
	}
}

// TestStaticBytesSharded checks a GPU's static bytes: 16 per parameter of
// its T-way shard, and 2 + 2 + 12/D with the distributed optimizer
// (ZeRO stage 1, Rajbhandari et al. §5: the optimizer state split over
// the data-parallel replicas).
func TestStaticBytesSharded(t *testing.T) {
	whole, err := NewGPUModel(clusterConfig(t, Parallelism{}), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Parallelism{{Tensor: 8}, {Tensor: 4, Data: 8, DistributedOptimizer: true}} {
		g, err := NewGPUModel(clusterConfig(t, p), 1)
		if err != nil {
			t.Fatal(err)
		}
		per := 16.0
		if p.DistributedOptimizer {
			per = 4 + 12/float64(p.Data)
		}
		want := whole.Params(0) / float64(p.Tensor) * per
		if got := g.StaticBytes(0); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%+v: %.6g static bytes, want %.6g", p, got, want)
		}
	}
}
