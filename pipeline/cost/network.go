package cost

import (
	"fmt"
	"strings"
)

// LayerKind is what a layer of a model is; the kinds differ in how their
// cost scales with the microbatch.
type LayerKind uint8

// The layer kinds of the model presets.
const (
	// Embedding looks up token embeddings: parameters, no FLOPs worth
	// counting, and the sequence it hands on.
	Embedding LayerKind = iota
	// Decoder is a dense transformer layer (attention and an MLP).
	Decoder
	// MoE is a transformer layer whose MLP is a set of routed experts,
	// of which each token visits a few, plus optional shared experts.
	MoE
	// VisionEmbedding cuts an image into patches and projects them
	// (a convolution with stride equal to its kernel, as a matrix product).
	VisionEmbedding
	// VisionEncoder is a transformer layer of a vision tower, run over the
	// image's patch tokens rather than the text sequence.
	VisionEncoder
	// Projector maps vision features into the decoder's hidden size (a
	// two-layer MLP).
	Projector
	// Head is the final norm and the output projection onto the
	// vocabulary, with the loss.
	Head
)

var layerKindNames = [...]string{
	Embedding:       "embedding",
	Decoder:         "decoder",
	MoE:             "moe",
	VisionEmbedding: "vision-embedding",
	VisionEncoder:   "vision-encoder",
	Projector:       "projector",
	Head:            "head",
}

func (k LayerKind) String() string {
	if int(k) < len(layerKindNames) {
		return layerKindNames[k]
	}
	return fmt.Sprintf("LayerKind(%d)", uint8(k))
}

// Block is a run of Count identical layers of a model.
type Block struct {
	Kind  LayerKind
	Count int
	// Hidden is the layer's hidden size h; Heads the attention heads a;
	// KVHeads the key/value heads (grouped-query attention; 0 means
	// Heads); FFN the MLP width (per expert for MoE).
	Hidden, Heads, KVHeads, FFN int
	// Gated is true for a gated MLP (SwiGLU: three matrices, not two).
	Gated bool
	// Experts, Active and Shared describe an MoE layer: routed experts,
	// routed experts each token visits (top-k), and shared experts every
	// token visits.
	Experts, Active, Shared int
	// HeadDim is the width of an attention head when it is not
	// Hidden/Heads (Qwen3's head_dim); 0 means Hidden/Heads. MLA, when
	// set, replaces the attention's projections with DeepSeek's latent
	// ones (attention.go).
	HeadDim int
	MLA     MLA
	// Vocab is the vocabulary of an Embedding or a Head.
	Vocab int
	// Tokens fixes the sequence length of vision kinds (patch tokens per
	// image, class token included); 0 means the training sequence s.
	Tokens int
	// In is the input width of a Projector, or the pixels per patch times
	// channels (3p²) of a VisionEmbedding.
	In int
	// Positions is the length of an Embedding's learned position table
	// (GPT-2); 0 for rotary or no positions.
	Positions int
	// Bias marks GPT-style layers: LayerNorms with a bias (2h parameters,
	// not RMSNorm's h) and a bias on every linear layer of a transformer
	// layer. QKVBias puts biases on the query, key and value projections
	// only (Qwen2). Both change parameters, not FLOPs.
	Bias, QKVBias bool
	// Tied marks a Head whose projection is the embedding's matrix
	// (tie_word_embeddings): Network.Params counts it once, while the
	// stage holding the head still holds, and prices, its copy, as
	// Megatron-LM keeps one on the last stage.
	Tied bool
}

// Network is a network as the timing model sees it: its blocks in pipeline
// order. Homogeneous presets are an embedding, a run of decoder layers and
// a head; heterogeneous ones mix kinds.
type Network struct {
	Name string
	// Source names the paper or model card the numbers come from.
	Source string
	Blocks []Block
}

// Layer is the cost of one layer for one microbatch of b samples of s
// tokens: FLOPs of the forward, of the input-gradient backward (B) and of
// the weight-gradient backward (W), parameters, activation bytes kept from
// the forward until the backward (M_B), the bytes of those that a split
// backward still holds after its input gradient until its W (M_W, see
// weightGrad), and the bytes of the output it passes to the next layer.
type Layer struct {
	Kind                                   LayerKind
	Forward, BackwardInput, BackwardWeight float64
	Params                                 float64
	Activation                             float64
	// WeightGrad is M_W: what stays from the end of the input-gradient
	// backward (I) until the weight-gradient backward (W) when a table
	// splits the two. It never exceeds Activation.
	WeightGrad float64
	Output     float64
	// AllToAll is the bytes one expert-parallel all-to-all of an MoE
	// layer moves per GPU, and RoutedParams the layer's routed-expert
	// parameters, which an expert-parallel group shares (moe.go); zero for
	// other kinds.
	AllToAll, RoutedParams float64
	// Attention is the forward FLOPs of a transformer layer's attention
	// core (the scores QKᵀ and their weighted sum, 4t²bh), part of
	// Forward: what selective recomputation runs again in the backward.
	Attention float64
	// Scores is the bytes of Activation that the attention core keeps
	// (the softmax output and its dropout, 5at²b, or FlashAttention's
	// log-sum-exp): what selective recomputation does not store.
	Scores float64
}

// BytesPerElement is the size of one activation or weight element in the
// bf16 mixed-precision training the GPU model assumes.
const BytesPerElement = 2

// Layers expands the model into one cost per layer for microbatches of b
// samples of s tokens, with attention as Korthikanti et al. count it (the
// attention scores kept for the backward).
func (m Network) Layers(b, s int) ([]Layer, error) { return m.layers(b, s, false) }

// LayersFlash is Layers with FlashAttention (Dao et al., arXiv 2205.14135
// and 2307.08691) in every transformer layer: the t×t attention scores are
// never stored, only each head's softmax log-sum-exp, and the backward
// recomputes the scores.
func (m Network) LayersFlash(b, s int) ([]Layer, error) { return m.layers(b, s, true) }

func (m Network) layers(b, s int, flash bool) ([]Layer, error) {
	if b < 1 || s < 1 {
		return nil, fmt.Errorf("cost: model %s: microbatch size %d and sequence length %d must be positive", m.Name, b, s)
	}
	var out []Layer
	for i, blk := range m.Blocks {
		if err := blk.validate(); err != nil {
			return nil, fmt.Errorf("cost: model %s block %d (%s): %w", m.Name, i, blk.Kind, err)
		}
		l := blk.layer(float64(b), float64(s), flash)
		for range blk.Count {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cost: model %s has no layers", m.Name)
	}
	return out, nil
}

// Params returns the model's parameter count: each tied head's matrix,
// which is the embedding's, is counted once.
func (m Network) Params() float64 {
	var p float64
	for _, blk := range m.Blocks {
		p += float64(blk.Count) * blk.params()
		if blk.Kind == Head && blk.Tied {
			p -= float64(blk.Count) * float64(blk.Vocab) * float64(blk.Hidden)
		}
	}
	return p
}

// LayerCount returns the number of layers of the model.
func (m Network) LayerCount() int {
	n := 0
	for _, blk := range m.Blocks {
		n += blk.Count
	}
	return n
}

// Describe summarises the blocks in one line ("embedding, 32×decoder, head").
func (m Network) Describe() string {
	parts := make([]string, len(m.Blocks))
	for i, blk := range m.Blocks {
		if blk.Count == 1 {
			parts[i] = blk.Kind.String()
		} else {
			parts[i] = fmt.Sprintf("%d×%s", blk.Count, blk.Kind)
		}
	}
	return strings.Join(parts, ", ")
}

func (blk Block) validate() error {
	if blk.Count < 1 {
		return fmt.Errorf("count %d must be positive", blk.Count)
	}
	switch blk.Kind {
	case Embedding, Head:
		if blk.Hidden < 1 || blk.Vocab < 1 {
			return fmt.Errorf("hidden %d and vocab %d must be positive", blk.Hidden, blk.Vocab)
		}
	case Decoder, MoE, VisionEncoder:
		if blk.Hidden < 1 || blk.Heads < 1 || blk.FFN < 1 || blk.Hidden%blk.Heads != 0 {
			return fmt.Errorf("hidden %d, heads %d, ffn %d: need positive sizes, hidden a multiple of heads", blk.Hidden, blk.Heads, blk.FFN)
		}
		if blk.Kind == MoE && (blk.Experts < 1 || blk.Active < 1 || blk.Active > blk.Experts || blk.Shared < 0) {
			return fmt.Errorf("experts %d, active %d, shared %d: need 1 ≤ active ≤ experts and shared ≥ 0", blk.Experts, blk.Active, blk.Shared)
		}
		if blk.Kind == MoE && blk.Bias {
			return fmt.Errorf("an MoE layer takes no Bias (the GPT-style biases of dense layers)")
		}
		if blk.KVHeads < 0 || blk.KVHeads > 0 && blk.Heads%blk.KVHeads != 0 {
			return fmt.Errorf("heads %d, kv heads %d: the key/value heads must divide the heads", blk.Heads, blk.KVHeads)
		}
		if blk.HeadDim < 0 {
			return fmt.Errorf("head dim %d must not be negative", blk.HeadDim)
		}
		if blk.MLA != (MLA{}) {
			if err := blk.MLA.validate(); err != nil {
				return err
			}
		}
	case VisionEmbedding, Projector:
		if blk.Hidden < 1 || blk.In < 1 || blk.Tokens < 1 {
			return fmt.Errorf("hidden %d, in %d, tokens %d must be positive", blk.Hidden, blk.In, blk.Tokens)
		}
	default:
		return fmt.Errorf("unknown layer kind")
	}
	return nil
}

// tokens returns the sequence length the block runs over.
func (blk Block) tokens(s float64) float64 {
	if blk.Tokens > 0 {
		return float64(blk.Tokens)
	}
	return s
}

// layer prices one layer of the block. For transformer layers (Zero Bubble
// paper, arXiv 2401.10241, and docs/reference.md §2): with linear FLOPs
// L = 2·t·b·(attention and MLP weights) and attention-core FLOPs
// A = 4·t²·b·h (scores and the weighted sum; attentionCore for other head
// widths and MLA), F = L + A, B = L + 2A (both
// operands of each attention product need gradients) and W = L. With
// h×h Q/K/V/O and a 4h two-matrix MLP, L = 24tbh² and this is the paper's
// F = tbh(24h + 4t), B = tbh(24h + 8t), W = 24tbh². With flash attention
// the backward first recomputes the scores QKᵀ (2t²bh, half of A), so
// B = L + 2.5A, and the layer keeps no scores (see activation).
func (blk Block) layer(b, s float64, flash bool) Layer {
	t := blk.tokens(s)
	h := float64(blk.Hidden)
	l := Layer{Kind: blk.Kind, Params: blk.params(), Output: t * b * h * BytesPerElement}
	switch blk.Kind {
	case Embedding:
		// A lookup: its FLOPs are negligible, its weight gradient is a
		// scatter-add; it keeps only token ids.
		l.WeightGrad = blk.weightGrad(b, t, 0, l.Activation)
	case Head:
		lin := 2 * t * b * h * float64(blk.Vocab)
		l.Forward, l.BackwardInput, l.BackwardWeight = lin, lin, lin
		// Korthikanti et al. (arXiv 2205.05198) §4.3: the final norm's
		// and the projection's inputs, 2tbh each, and fp32 logits 4tbv.
		l.Activation = 4*t*b*h + 4*t*b*float64(blk.Vocab)
		l.Output = 0
		l.WeightGrad = blk.weightGrad(b, t, 0, l.Activation)
	case Decoder, VisionEncoder, MoE:
		weights := blk.attentionParams() + blk.mlpParams()
		widthVisited := float64(blk.FFN)
		if blk.Kind == MoE {
			visited := float64(blk.Active + blk.Shared)
			weights = blk.attentionParams() + visited*blk.mlpParams() + h*float64(blk.Experts)
			widthVisited *= visited
		}
		lin := 2 * t * b * weights
		attn := blk.attentionCore(t, b)
		l.Forward, l.BackwardInput, l.BackwardWeight = lin+attn, lin+2*attn, lin
		l.Attention = attn
		l.Scores = blk.scores(b, t, flash)
		if flash {
			l.BackwardInput += attn / 2
		}
		l.Activation = blk.activation(b, t, widthVisited, flash)
		l.WeightGrad = blk.weightGrad(b, t, widthVisited, l.Activation)
		blk.moeLayer(&l, b, t)
	case VisionEmbedding:
		lin := 2 * t * b * float64(blk.In) * h
		// The pixels need no gradient: B is empty.
		l.Forward, l.BackwardWeight = lin, lin
		l.Activation = t * b * float64(blk.In) * BytesPerElement
		l.WeightGrad = blk.weightGrad(b, t, 0, l.Activation)
	case Projector:
		lin := 2 * t * b * (float64(blk.In)*h + h*h)
		l.Forward, l.BackwardInput, l.BackwardWeight = lin, lin, lin
		// Inputs of both linears and of the GELU between them.
		l.Activation = t * b * (float64(blk.In) + 2*h) * BytesPerElement
		l.WeightGrad = blk.weightGrad(b, t, 0, l.Activation)
	}
	return l
}

// activation is what a transformer layer keeps for its backward, after
// Korthikanti et al. (arXiv 2205.05198) §4.1, bf16, no recomputation, no
// tensor or sequence parallelism: attention 11tbh + 5at²b (the QKV input
// 2tbh, Q and K 4tbh, V 2tbh, the output projection's input 2tbh, a dropout
// mask tbh, softmax output and dropout 5at²b), MLP 19tbh with width 4h
// (input 2tbh, two 8tbh intermediates, mask tbh), layer norms 4tbh: in all
// tb(34h + 5at), docs/reference.md §2. Generalised here to grouped-query K and V
// (2tb·kv each) and to an MLP of width f (3tbh + 4tbf, or 3tbh + 6tbf when
// gated, whose third matrix adds an intermediate); f is the width summed
// over the experts a token visits for MoE. With flash attention the
// softmax output and its dropout (5at²b) are not kept; each head keeps the
// fp32 log-sum-exp of its rows instead, 4atb (the attention output, the
// output projection's input, is kept either way).
func (blk Block) activation(b, t, f float64, flash bool) float64 {
	h, kv := float64(blk.Hidden), blk.kvWidth()
	attention := 7*t*b*h + 4*t*b*kv + blk.scores(b, t, flash)
	intermediates := 4.0
	if blk.Gated {
		intermediates = 6
	}
	mlp := 3*t*b*h + intermediates*t*b*f
	return attention + mlp + 4*t*b*h
}

// scores is the part of activation the attention core keeps: the softmax
// output and its dropout, 5at²b, or with flash attention each head's fp32
// log-sum-exp, 4atb.
func (blk Block) scores(b, t float64, flash bool) float64 {
	a := float64(blk.Heads)
	if flash {
		return 4 * a * t * b
	}
	return 5 * a * t * t * b
}

// weightGrad returns M_W, what a layer still holds between its input-
// gradient backward (I) and its weight-gradient backward (W) when a table
// splits them; mb is the layer's M_B (Layer.Activation) and f, for
// transformer layers, the MLP width summed over the experts a token visits.
//
// The W of a linear layer y = xA computes dA = xᵀ·dy: it needs the layer's
// input x and the gradient of its output dy, nothing else. Everything else
// the forward kept (attention scores, softmax outputs, dropout masks, norm
// inputs, the MLP's activation-function inputs) is used by I alone and is
// freed when I ends. Only the linear layers' weight gradients are deferred
// to W, as in the Zero Bubble implementation (arXiv 2401.10241, §2), and as
// Layer.BackwardWeight counts them; the gradients of norm gains (and of
// biases, which the presets leave out) are taken in I. Elements are bf16,
// BytesPerElement each.
//
// Transformer layers (Decoder, VisionEncoder, MoE), t tokens, b samples,
// hidden h, key/value width kv, MLP width f, g = 2 for a gated MLP (gate and
// up projections both of width f) and 1 otherwise:
//
//	linear          input x   output dy
//	QKV             h         h + 2kv
//	attention out   h         h
//	MLP up (+gate)  h         g·f
//	MLP down        f         h
//
// so the inputs take 2tb(3h + f) bytes and the output gradients
// 2tb(3h + 2kv + g·f). With multi-head attention (kv = h), f = 4h and a
// two-matrix MLP this is 14tbh + 18tbh = 32tbh, docs/reference.md §2's "W 32sbh".
// Against M_B (activation) this is 2tbh + 5at²b less, however kv, f and g
// are set: the inputs are all in M_B; the output gradients of QKV and of
// the MLP's up (and gate) projections are the size of the Q, K, V and MLP
// intermediates M_B holds; those of the attention output and the MLP down
// projection (4tbh) are new; the softmax outputs and their dropout
// (5at²b), the norms' inputs (4tbh) and the two dropout masks (2tbh) go.
// For MoE, f sums the visited experts, as in activation, so the experts'
// inputs are counted once, as M_B counts them; the router's output
// gradient (tb elements per expert) is left out, as M_B leaves out its
// logits.
//
// Head: the projection onto the vocabulary needs its input (2tbh) and the
// gradient of the logits, taken in bf16 (2tbv); the final norm's input
// (2tbh) and the fp32 logits (4tbv) go with I. M_W = 2tb(h + v), below
// M_B = 4tbh + 4tbv.
//
// Embedding, VisionEmbedding and Projector: the same rule gives more than
// the M_B the model counts for them, since M_B leaves out the output
// gradient, which only W needs. An embedding's W needs the token ids and
// its output gradient (2tbh; M_B = 0, the ids being left out), the patch
// projection's its patches and its output gradient (2tb(In + h); M_B =
// 2tb·In), the projector's the inputs of its two linears and their two
// output gradients (2tb(In + 3h); M_B = 2tb(In + 2h), with the GELU input,
// the one thing its I frees). These layers keep M_W = M_B, the old
// behaviour, which here is not an overestimate: it falls 2tbh short of the
// derivation for each of the three (about 1% of one llama-7b decoder
// layer's M_B at b = 1, s = 4096), the gradient of the layer's output held
// between I and W, which the model counted nowhere before either. Keeping
// it out makes M_W ≤ M_B hold for every layer, so that I never adds bytes.
func (blk Block) weightGrad(b, t, f, mb float64) float64 {
	switch blk.Kind {
	case Decoder, VisionEncoder, MoE:
		h, kv := float64(blk.Hidden), blk.kvWidth()
		g := 1.0
		if blk.Gated {
			g = 2
		}
		inputs := t * b * (3*h + f) * BytesPerElement
		outputGrads := t * b * (3*h + 2*kv + g*f) * BytesPerElement
		return inputs + outputGrads
	case Head:
		return t * b * (float64(blk.Hidden) + float64(blk.Vocab)) * BytesPerElement
	}
	return mb
}
