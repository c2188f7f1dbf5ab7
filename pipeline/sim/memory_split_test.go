package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// TestWeightGradTransformer32tbh checks M_W of transformer layers against
// the closed forms. With multi-head attention (kv = h), an MLP of width 4h
// and two matrices, the inputs of the four linears take 2tb(3h + 4h) =
// 14tbh bytes and their output gradients 2tb(3h + 2h + 4h) = 18tbh, in all
// 32tbh: docs/reference.md §2 (Zero Bubble, arXiv 2401.10241), "W 32sbh". With
// grouped-query attention (kv < h) and a gated MLP of width f, the brief's
// form is 2tb(3h + f) + 2tb(3h + 2kv + 2f); for MoE, f sums the visited
// experts. Whatever the shape, M_B − M_W is what only the input gradient
// needs: the softmax outputs and their dropout 5at²b and 2tbh (norm inputs
// 4tbh and dropout masks 2tbh, less the attention output's and MLP down
// projection's output gradients 4tbh).
func TestWeightGradTransformer32tbh(t *testing.T) {
	cases := []struct {
		name string
		blk  cost.Block
		b, s float64
		want float64 // M_W bytes
	}{
		{"mha 4h", cost.Block{Kind: cost.Decoder, Count: 1, Hidden: 2048, Heads: 16, FFN: 4 * 2048}, 1, 2048,
			32 * 2048 * 1 * 2048},
		{"mha 4h b=2", cost.Block{Kind: cost.Decoder, Count: 1, Hidden: 4096, Heads: 32, FFN: 4 * 4096}, 2, 1024,
			32 * 1024 * 2 * 4096},
		// The vision encoder runs its own Tokens whatever the sequence.
		{"vit", cost.Block{Kind: cost.VisionEncoder, Count: 1, Hidden: 1024, Heads: 16, FFN: 4096, Tokens: 577}, 1, 2048,
			32 * 577 * 1 * 1024},
		// h = 8192, 64 heads of 128, 8 KV heads: kv = 1024; f = 28672, gated.
		{"gqa gated", cost.Block{Kind: cost.Decoder, Count: 1, Hidden: 8192, Heads: 64, KVHeads: 8, FFN: 28672, Gated: true}, 1, 4096,
			2*4096*(3*8192+28672) + 2*4096*(3*8192+2*1024+2*28672)},
		// 6 routed + 2 shared experts of width 1408: f = 8·1408 = 11264.
		{"moe", cost.Block{Kind: cost.MoE, Count: 1, Hidden: 2048, Heads: 16, FFN: 1408, Gated: true, Experts: 64, Active: 6, Shared: 2}, 2, 2048,
			2*2048*2*(3*2048+11264) + 2*2048*2*(3*2048+2*2048+2*11264)},
	}
	for _, c := range cases {
		layers, err := cost.Network{Name: c.name, Blocks: []cost.Block{c.blk}}.Layers(int(c.b), int(c.s))
		if err != nil {
			t.Fatal(err)
		}
		l := layers[0]
		if l.WeightGrad != c.want {
			t.Errorf("%s: M_W = %.0f bytes, want %.0f", c.name, l.WeightGrad, c.want)
		}
		tok := c.s
		if c.blk.Tokens > 0 {
			tok = float64(c.blk.Tokens)
		}
		h, a := float64(c.blk.Hidden), float64(c.blk.Heads)
		if got, want := l.Activation-l.WeightGrad, 5*a*tok*tok*c.b+2*tok*c.b*h; got != want {
			t.Errorf("%s: M_B − M_W = %.0f bytes, want 5at²b + 2tbh = %.0f", c.name, got, want)
		}
	}
}

// TestWeightGradOtherKinds checks M_W of the layers around the
// transformer blocks: the head keeps the projection's input and the
// logits' bf16 gradient, 2tb(h + v); the embeddings and the projector keep
// M_B (see Block.weightGrad).
func TestWeightGradOtherKinds(t *testing.T) {
	const b, s = 2, 1024
	m := cost.Network{Name: "parts", Blocks: []cost.Block{
		{Kind: cost.Embedding, Count: 1, Hidden: 4096, Vocab: 32000},
		{Kind: cost.VisionEmbedding, Count: 1, Hidden: 1024, In: 588, Tokens: 577},
		{Kind: cost.Projector, Count: 1, Hidden: 4096, In: 1024, Tokens: 576},
		{Kind: cost.Head, Count: 1, Hidden: 4096, Vocab: 32000},
	}}
	layers, err := m.Layers(b, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers[:3] {
		if l.WeightGrad != l.Activation {
			t.Errorf("%s: M_W = %.0f, want M_B = %.0f", l.Kind, l.WeightGrad, l.Activation)
		}
	}
	if got, want := layers[3].WeightGrad, 2.0*s*b*(4096+32000); got != want {
		t.Errorf("head: M_W = %.0f, want 2tb(h + v) = %.0f", got, want)
	}
}

// TestWeightGradAtMostActivation: M_W ≤ M_B for every layer of every
// model preset, at two microbatch shapes, and so for every stage of the
// GPU model over any partition; M_W is not negative.
func TestWeightGradAtMostActivation(t *testing.T) {
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	for _, m := range cost.Networks() {
		for _, shape := range [][2]int{{1, 2048}, {4, 512}} {
			layers, err := m.Layers(shape[0], shape[1])
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range layers {
				if l.WeightGrad < 0 || l.WeightGrad > l.Activation {
					t.Errorf("%s b=%d s=%d layer %d (%s): M_W %.0f outside [0, M_B = %.0f]", m.Name, shape[0], shape[1], i, l.Kind, l.WeightGrad, l.Activation)
				}
			}
			g, err := cost.NewGPUModel(cost.GPUConfig{Network: m, GPU: gpu, Link: link, Microbatch: shape[0], Sequence: shape[1]}, 4)
			if err != nil {
				t.Fatal(err)
			}
			for s := range g.Stages() {
				if mw, mb := g.WeightGradBytes(s), g.ActivationBytes(s); mw < 0 || mw > mb {
					t.Errorf("%s stage %d: M_W %.0f outside [0, M_B = %.0f]", m.Name, s, mw, mb)
				}
			}
		}
	}
}

// splitMemory is the hand-worked model of TestPeakMemorySplitByHand:
// stage 0 keeps 10 bytes per forward of which 4 stay after I, stage 1
// keeps 7 of which 2; the stages hold 100 and 50 bytes for the whole run.
type splitMemory struct{}

func (splitMemory) ActivationBytes(s int) float64 { return []float64{10, 7}[s] }
func (splitMemory) WeightGradBytes(s int) float64 { return []float64{4, 2}[s] }
func (splitMemory) StaticBytes(s int) float64     { return []float64{100, 50}[s] }

// wholeOnly is splitMemory without WeightGradBytes, so M_W = M_B.
func (m splitMemory) wholeOnly() cost.Memory { return splitMemoryNoW{m} }

type splitMemoryNoW struct{ m splitMemory }

func (m splitMemoryNoW) ActivationBytes(s int) float64 { return m.m.ActivationBytes(s) }
func (m splitMemoryNoW) StaticBytes(s int) float64     { return m.m.StaticBytes(s) }

// TestPeakMemorySplitByHand works a ZB-H1 table with P = 2, M = 3 by hand.
// The rows (bubbles left out):
//
//	rank 0: F0 F1 I0 W0 F2 I1 W1 I2 W2
//	rank 1: F0 I0 F1 I1 W0 F2 I2 W1 W2
//
// F adds M_B, I frees M_B − M_W, W frees M_W. Rank 0 (M_B 10, M_W 4):
// 10, 20, 14, 10, 20, 14, 10, 4, 0: peak 20, plus 100 static = 120.
// Rank 1 (M_B 7, M_W 2): 7, 2, 9, 4, 2, 9, 4, 2, 0: peak 9, plus 50 = 59.
// With M_W = M_B (the model without WeightGradBytes, the accounting before
// the split was priced) rank 1 runs 7, 7, 14, 14, 7, 14, 14, 7, 0: peak 14,
// 64; rank 0 runs 10, 20, 20, 10, 20, 20, 10, 10, 0: still 120. The
// activation count is the same under both (a microbatch counts until its
// W): rank 0 holds 2 (after F1), rank 1 holds 2 (after F1 and F2).
func TestPeakMemorySplitByHand(t *testing.T) {
	tab := generate(t, "zb-h1", pipeline.Shape{Ranks: 2, Microbatches: 3})
	want := [][]string{
		{"0F0", "0F1", "0I0", "0W0", "0F2", "0I1", "0W1", "0I2", "0W2"},
		{"1F0", "1I0", "1F1", "1I1", "1W0", "1F2", "1I2", "1W1", "1W2"},
	}
	for r, row := range tab.Rows {
		var got []string
		for _, a := range row {
			if a.Kind != pipeline.Bubble {
				got = append(got, a.String())
			}
		}
		if !slices.Equal(got, want[r]) {
			t.Fatalf("rank %d runs %v, the hand-worked case assumes %v", r, got, want[r])
		}
	}
	for _, pol := range []Policy{Fixed, Ready} {
		tl := simulateOK(t, tab, cost.Unit{}, Options{Policy: pol})
		if got := PeakMemory(tl, splitMemory{}); !slices.Equal(got, []float64{120, 59}) {
			t.Errorf("policy %v: split peaks %v, want [120 59]", pol, got)
		}
		if got := PeakMemory(tl, splitMemory{}.wholeOnly()); !slices.Equal(got, []float64{120, 64}) {
			t.Errorf("policy %v: peaks without M_W %v, want [120 64]", pol, got)
		}
		if got := PeakActivations(tl); !slices.Equal(got, []int{2, 2}) {
			t.Errorf("policy %v: activation counts %v, want [2 2]", pol, got)
		}
		stats := RankStats(tl, splitMemory{})
		if stats[1].PeakMemoryBytes != 59 || stats[1].PeakActivations != 2 {
			t.Errorf("policy %v: rank 1 stats %+v, want 59 bytes and 2 activations", pol, stats[1])
		}
	}
	if got := FixedPeakMemory(tab, splitMemory{}); !slices.Equal(got, []float64{120, 59}) {
		t.Errorf("fixed-order peaks %v, want [120 59]", got)
	}
}

// activationOnly hides a model's WeightGradBytes.
type activationOnly struct{ g *cost.GPUModel }

func (m activationOnly) ActivationBytes(s int) float64 { return m.g.ActivationBytes(s) }
func (m activationOnly) StaticBytes(s int) float64     { return m.g.StaticBytes(s) }

// gpuTable simulates family at P ranks and M microbatches under the GPU
// model of model on H100s over InfiniBand, b = 1, s = 2048.
func gpuTable(t *testing.T, model, family string, p, m int) (*cost.GPUModel, *pipeline.Table, *Timeline) {
	t.Helper()
	mod, err := cost.LookupNetwork(model)
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: mod, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, p)
	if err != nil {
		t.Fatal(err)
	}
	tab := generate(t, family, pipeline.Shape{Ranks: p, Microbatches: m})
	return g, tab, simulateOK(t, tab, g, Options{})
}

// TestPeakMemoryUnsplitUnchanged: a table that splits no backward (1F1B,
// GPipe) frees M_B at B as before, so with one stage per rank each rank's
// peak is its static bytes plus M_B times its peak activation count, an
// independent product, exactly (the bytes are integers in float64). The
// same holds for ZB-H1 under a model without WeightGradBytes, where
// M_W = M_B.
func TestPeakMemoryUnsplitUnchanged(t *testing.T) {
	for _, model := range []string{"gpt-1.3b", "llama-7b", "deepseek-moe-16b"} {
		for _, family := range []string{"1f1b", "gpipe", "zb-h1"} {
			const p, m = 4, 8
			g, _, tl := gpuTable(t, model, family, p, m)
			var mem cost.Memory = g
			if family == "zb-h1" {
				mem = activationOnly{g}
			}
			counts := PeakActivations(tl)
			for r, got := range PeakMemory(tl, mem) {
				if want := g.StaticBytes(r) + float64(counts[r])*g.ActivationBytes(r); got != want {
					t.Errorf("%s %s rank %d: peak %.17g bytes, want static + %d·M_B = %.17g", model, family, r, got, counts[r], want)
				}
			}
		}
	}
}

// TestZBH1PeakLlama7B: ZB-H1 at P = 8 on llama-7b. In ZB-H1 (arXiv
// 2401.10241, §3.1) rank r runs its W's r behind its I's, so at its peak,
// right after the forward that brings its count to P (the count holds a
// microbatch until its W), P − r of the microbatches it holds have not run
// their I and r have: (P − r)·M_B + r·M_W, at most P·M_B, docs/reference.md
// §2's "ZB-H1 ... peak p·M_B" (the hand-worked P = 2 case above is this
// form too: 2·10 and 7 + 2). Rank 0 holds the full P·M_B; every other rank
// holds less than it did before the split was priced (P·M_B on every rank).
func TestZBH1PeakLlama7B(t *testing.T) {
	const p = 8
	for _, m := range []int{p, 3 * p} {
		g, tab, tl := gpuTable(t, "llama-7b", "zb-h1", p, m)
		got := PeakMemory(tl, g)
		old := PeakMemory(tl, activationOnly{g})
		fixed := FixedPeakMemory(tab, g)
		for r := range p {
			mb, mw, st := g.ActivationBytes(r), g.WeightGradBytes(r), g.StaticBytes(r)
			what := fmt.Sprintf("M=%d rank %d", m, r)
			if want := st + float64(p-r)*mb + float64(r)*mw; !near(got[r], want) {
				t.Errorf("%s: peak %.6g bytes, want static + (P−r)·M_B + r·M_W = %.6g", what, got[r], want)
			}
			if bound := st + p*mb; got[r] > bound {
				t.Errorf("%s: peak %.6g bytes above static + P·M_B = %.6g", what, got[r], bound)
			}
			if r > 0 && !(got[r] < old[r]) {
				t.Errorf("%s: peak %.6g bytes not below the unsplit accounting's %.6g", what, got[r], old[r])
			}
			if fixed[r] != got[r] {
				t.Errorf("%s: FixedPeakMemory %.17g, simulated %.17g", what, fixed[r], got[r])
			}
		}
	}
}

// TestFixedPeakMemoryMatchesSimulation: under the Fixed policy, with and
// without variability, PeakMemory is the fixed-order walk over every
// family that generates at P = 4, M = 8 (unsplit, split, interleaved,
// V-shaped, Chimera's two pipelines, PipeDream).
func TestFixedPeakMemoryMatchesSimulation(t *testing.T) {
	cfg := presetConfig(t, "gpt-1.3b", "h100", "ib-ndr")
	var checked []string
	for _, f := range pipeline.Families() {
		tab, err := pipeline.Generate(f.Name, pipeline.Shape{Ranks: 4, Microbatches: 8, Chunks: 2})
		if err != nil { // a family without chunks
			if tab, err = pipeline.Generate(f.Name, pipeline.Shape{Ranks: 4, Microbatches: 8}); err != nil {
				continue // one that needs another shape still
			}
		}
		model, err := cost.GPUForTable(cfg, tab)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		checked = append(checked, f.Name)
		want := FixedPeakMemory(tab, model)
		for _, v := range []Variability{{}, {Seed: 9, Sigma: 0.4, CommSigma: 0.4, Stragglers: map[int]float64{2: 2}}} {
			tl, err := Simulate(tab, model, Options{Variability: v})
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if got := PeakMemory(tl, model); !slices.Equal(got, want) {
				t.Errorf("%s (σ %g): simulated peaks %v, fixed-order walk %v", f.Name, v.Sigma, got, want)
			}
		}
	}
	for _, name := range []string{"1f1b", "zb-h1", "zb-h2", "interleaved-zb", "zb-v", "chimera"} {
		if !slices.Contains(checked, name) {
			t.Errorf("family %s was not checked (checked %v)", name, checked)
		}
	}
}

// TestReplicatedWeightGrad: a table whose stages replicate model parts
// (Chimera) prices M_W of each stage as the part it runs.
func TestReplicatedWeightGrad(t *testing.T) {
	cfg := presetConfig(t, "gpt-1.3b", "h100", "ib-ndr")
	tab := generate(t, "chimera", pipeline.Shape{Ranks: 4, Microbatches: 4})
	model, err := cost.GPUForTable(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	wg, ok := model.(cost.WeightGradMemory)
	if !ok {
		t.Fatalf("GPUForTable's %T has no WeightGradBytes", model)
	}
	whole, err := cost.NewGPUModel(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := cost.ModelParts(tab)
	for s := range tab.Stages() {
		if got, want := wg.WeightGradBytes(s), whole.WeightGradBytes(part[s]); got != want {
			t.Errorf("stage %d (part %d): M_W %.0f, want %.0f", s, part[s], got, want)
		}
	}
}
