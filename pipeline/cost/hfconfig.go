package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// HFArchitectures lists the HuggingFace model_type values ReadHFConfig
// reads.
var HFArchitectures = []string{"llama", "mistral", "qwen2", "qwen3", "gpt2", "gpt_neox", "mixtral", "deepseek", "qwen3_moe", "deepseek_v3"}

// ReadHFConfig reads a HuggingFace config.json into a Network: the
// Llama/Mistral/Qwen2 family (gated decoders, grouped-query attention,
// Qwen2's Q/K/V biases), GPT-2 and GPT-NeoX (LayerNorms and linear layers
// with biases, GPT-2's learned positions), Qwen3 (heads of head_dim) and
// the mixture-of-experts Mixtral, DeepSeekMoE, Qwen3-MoE and DeepSeek-V3
// (routed experts, top-k, shared experts, dense first layers, DeepSeek-V3's
// latent attention; hfconfig_moe.go). The fields read per model_type are in docs/presets.md.
// A missing or ill-typed field, a value the timing model cannot
// represent, a size outside its range (hfMax), or an unknown model_type
// is an error naming the file and the field; so is a file over
// inputfile.ModelConfig bytes, refused before it is read.
func ReadHFConfig(path string) (Network, error) {
	b, err := inputfile.ReadFile(path, "model config", inputfile.ModelConfig)
	if err != nil {
		return Network{}, err
	}
	return ParseHFConfig(b, path)
}

// ParseHFConfig is ReadHFConfig of the bytes of a config.json; name is the
// file named in errors and the Network's name.
func ParseHFConfig(data []byte, name string) (Network, error) {
	c := hfConfig{name: name}
	if err := json.Unmarshal(data, &c.fields); err != nil {
		return Network{}, fmt.Errorf("%s: not a JSON object: %v", name, err)
	}
	net, err := c.network()
	if err != nil {
		return Network{}, err
	}
	for i, blk := range net.Blocks {
		if err := blk.validate(); err != nil {
			return Network{}, fmt.Errorf("%s: block %d (%s): %w", name, i, blk.Kind, err)
		}
	}
	return net, nil
}

// hfConfig is a parsed config.json with the accessors that name the field
// that is wrong.
type hfConfig struct {
	name   string
	fields map[string]json.RawMessage
	kind   string
}

func (c *hfConfig) fail(field, format string, args ...any) error {
	return fmt.Errorf("%s: field %q: %s", c.name, field, fmt.Sprintf(format, args...))
}

// has reports whether the field is present and not null.
func (c *hfConfig) has(field string) bool {
	raw, ok := c.fields[field]
	return ok && string(raw) != "null"
}

// positive returns a required positive integer field.
func (c *hfConfig) positive(field string) (int, error) {
	if !c.has(field) {
		return 0, c.fail(field, "missing (model_type %s needs it)", c.kind)
	}
	return c.integer(field, 1)
}

// optional returns an integer field at least least, or def when it is
// absent or null.
func (c *hfConfig) optional(field string, def, least int) (int, error) {
	if !c.has(field) {
		return def, nil
	}
	return c.integer(field, least)
}

// hfMaxLayers bounds a config's layer count, and hfMax each size it gives
// by field, so that a corrupt file cannot make the model enormous: each is
// 8 to 64 times the largest published model's (docs/robustness.md,
// "Readers"). A field not listed is bounded by hfMaxSize.
const (
	hfMaxSize   = 1 << 31
	hfMaxLayers = 1 << 12
)

var hfMax = map[string]int{
	// Llama 3.1 405B: hidden 16384, 128 heads, FFN 53248, 126 layers.
	"hidden_size": 1 << 17, "n_embd": 1 << 17,
	"num_attention_heads": 1 << 12, "n_head": 1 << 12, "num_key_value_heads": 1 << 12, "head_dim": 1 << 12,
	"intermediate_size": 1 << 20, "n_inner": 1 << 20, "moe_intermediate_size": 1 << 20,
	"num_hidden_layers": hfMaxLayers, "n_layer": hfMaxLayers,
	"first_k_dense_replace": hfMaxLayers, "moe_layer_freq": hfMaxLayers,
	// Gemma's 256000 tokens; context of millions of tokens.
	"vocab_size": 1 << 22, "n_positions": 1 << 24,
	// DeepSeek-V3: 256 routed experts, 8 active, 1 shared.
	"num_local_experts": 1 << 16, "n_routed_experts": 1 << 16, "num_experts": 1 << 16,
	"num_experts_per_tok": 1 << 10, "n_shared_experts": 1 << 10, "decoder_sparse_step": hfMaxLayers,
	// DeepSeek-V3's latent attention: ranks 1536 and 512, heads of 192.
	"q_lora_rank": 1 << 17, "kv_lora_rank": 1 << 17,
	"qk_nope_head_dim": 1 << 12, "qk_rope_head_dim": 1 << 12, "v_head_dim": 1 << 12,
}

func (c *hfConfig) integer(field string, least int) (int, error) {
	most, ok := hfMax[field]
	if !ok {
		most = hfMaxSize
	}
	var f float64
	if err := json.Unmarshal(c.fields[field], &f); err != nil || math.IsNaN(f) || f != math.Trunc(f) || f < float64(least) || f > float64(most) {
		return 0, c.fail(field, "want an integer from %d to %d, got %s", least, most, inputfile.Name(string(c.fields[field])))
	}
	return int(f), nil
}

// layerCount returns a required layer count, at most hfMaxLayers.
func (c *hfConfig) layerCount(field string) (int, error) {
	n, err := c.positive(field)
	if err == nil && n > hfMaxLayers {
		return 0, c.fail(field, "%d layers exceed %d", n, hfMaxLayers)
	}
	return n, err
}

// flag returns a boolean field, def when absent or null.
func (c *hfConfig) flag(field string, def bool) (bool, error) {
	if !c.has(field) {
		return def, nil
	}
	var v bool
	if err := json.Unmarshal(c.fields[field], &v); err != nil {
		return false, c.fail(field, "want true or false, got %s", inputfile.Name(string(c.fields[field])))
	}
	return v, nil
}

// refuse is an error when a boolean field the timing model cannot price
// is true.
func (c *hfConfig) refuse(field, why string) error {
	v, err := c.flag(field, false)
	if err != nil {
		return err
	}
	if v {
		return c.fail(field, "true is not modelled: %s", why)
	}
	return nil
}

// network builds the Network of the config's model_type.
func (c *hfConfig) network() (Network, error) {
	known := strings.Join(HFArchitectures, ", ")
	if !c.has("model_type") {
		return Network{}, fmt.Errorf("%s: field \"model_type\": missing (known: %s)", c.name, known)
	}
	if err := json.Unmarshal(c.fields["model_type"], &c.kind); err != nil {
		return Network{}, c.fail("model_type", "want a string, got %s", inputfile.Name(string(c.fields["model_type"])))
	}
	if !slices.Contains(HFArchitectures, c.kind) {
		return Network{}, c.fail("model_type", "architecture %s is not supported (known: %s)", inputfile.Quote(c.kind), known)
	}
	var (
		blocks []Block
		err    error
	)
	switch c.kind {
	case "gpt2":
		blocks, err = c.gpt2()
	case "gpt_neox":
		blocks, err = c.gptNeoX()
	default:
		blocks, err = c.llamaFamily()
	}
	if err != nil {
		return Network{}, err
	}
	return Network{Name: c.name, Source: fmt.Sprintf("HuggingFace config %s (model_type %s)", c.name, c.kind), Blocks: blocks}, nil
}

// attention reads the hidden size, the heads and the key/value heads
// under the given field names, and checks that head_dim, when the config
// sets it, is hidden/heads (the timing model's head size).
func (c *hfConfig) attention(hiddenField, headsField string) (hidden, heads, kvHeads int, err error) {
	if hidden, err = c.positive(hiddenField); err != nil {
		return
	}
	if heads, err = c.positive(headsField); err != nil {
		return
	}
	if hidden%heads != 0 {
		return 0, 0, 0, c.fail(headsField, "%d heads do not divide %s %d", heads, hiddenField, hidden)
	}
	if kvHeads, err = c.optional("num_key_value_heads", heads, 1); err != nil {
		return
	}
	if heads%kvHeads != 0 {
		return 0, 0, 0, c.fail("num_key_value_heads", "%d key/value heads do not divide %d heads", kvHeads, heads)
	}
	if c.has("head_dim") && !c.headDimFree() {
		d, err := c.integer("head_dim", 1)
		if err != nil {
			return 0, 0, 0, err
		}
		if d != hidden/heads {
			return 0, 0, 0, c.fail("head_dim", "%d differs from %s/%s = %d, which the timing model assumes", d, hiddenField, headsField, hidden/heads)
		}
	}
	return hidden, heads, kvHeads, nil
}

// decoderShape is what the Llama family and GPT-NeoX configs spell alike:
// the attention's shape, the layer count, the MLP width, the vocabulary and
// whether the head is tied to the embedding (untied unless said).
type decoderShape struct {
	hidden, heads, kvHeads, layers, ffn, vocab int
	tied                                       bool
}

func (c *hfConfig) decoderShape() (decoderShape, error) {
	var d decoderShape
	var err error
	if d.hidden, d.heads, d.kvHeads, err = c.attention("hidden_size", "num_attention_heads"); err != nil {
		return d, err
	}
	if d.layers, err = c.layerCount("num_hidden_layers"); err != nil {
		return d, err
	}
	if d.ffn, err = c.positive("intermediate_size"); err != nil {
		return d, err
	}
	if d.vocab, err = c.positive("vocab_size"); err != nil {
		return d, err
	}
	d.tied, err = c.flag("tie_word_embeddings", false)
	return d, err
}

// llamaFamily reads Llama, Mistral, Qwen2, Qwen3 (dense, gated MLP,
// RMSNorm), Mixtral (every layer MoE), DeepSeekMoE and DeepSeek-V3 (dense
// first layers, then MoE every moe_layer_freq layers, with shared experts)
// and Qwen3-MoE (MoE every decoder_sparse_step layers but mlp_only_layers).
func (c *hfConfig) llamaFamily() ([]Block, error) {
	d, err := c.decoderShape()
	if err != nil {
		return nil, err
	}
	hidden, heads, kvHeads, layers, ffn, vocab, tied := d.hidden, d.heads, d.kvHeads, d.layers, d.ffn, d.vocab, d.tied
	for _, f := range []string{"attention_bias", "mlp_bias"} {
		if err := c.refuse(f, "the timing model's llama-family layers have no linear biases"); err != nil {
			return nil, err
		}
	}
	dense := Block{Kind: Decoder, Hidden: hidden, Heads: heads, KVHeads: kvHeads, FFN: ffn, Gated: true, QKVBias: c.kind == "qwen2"}
	if dense.KVHeads == dense.Heads {
		dense.KVHeads = 0
	}
	if dense, err = c.attentionShape(dense); err != nil {
		return nil, err
	}
	kinds := make([]Block, layers)
	for i := range kinds {
		kinds[i] = dense
	}
	switch c.kind {
	case "mixtral":
		moe, err := c.experts(dense, "num_local_experts", "intermediate_size", "")
		if err != nil {
			return nil, err
		}
		for i := range kinds {
			kinds[i] = moe
		}
	case "deepseek", "deepseek_v3":
		if err := c.deepseekLayers(dense, kinds); err != nil {
			return nil, err
		}
	case "qwen3_moe":
		if err := c.qwen3MoELayers(dense, kinds); err != nil {
			return nil, err
		}
	}
	out := []Block{{Kind: Embedding, Count: 1, Hidden: hidden, Vocab: vocab}}
	out = append(out, runs(kinds)...)
	return append(out, Block{Kind: Head, Count: 1, Hidden: hidden, Vocab: vocab, Tied: tied}), nil
}

// experts turns dense into an MoE layer from the named fields: the routed
// experts, their width, the shared experts (none when sharedField is
// empty) and num_experts_per_tok, the top-k.
func (c *hfConfig) experts(dense Block, expertsField, widthField, sharedField string) (Block, error) {
	moe := dense
	moe.Kind = MoE
	var err error
	if moe.Experts, err = c.positive(expertsField); err != nil {
		return moe, err
	}
	if moe.FFN, err = c.positive(widthField); err != nil {
		return moe, err
	}
	if moe.Active, err = c.positive("num_experts_per_tok"); err != nil {
		return moe, err
	}
	if moe.Active > moe.Experts {
		return moe, c.fail("num_experts_per_tok", "%d exceeds the %d experts of %s", moe.Active, moe.Experts, expertsField)
	}
	if sharedField != "" {
		if moe.Shared, err = c.optional(sharedField, 0, 0); err != nil {
			return moe, err
		}
	}
	return moe, nil
}

// deepseekLayers makes layer i of kinds an MoE layer when i ≥
// first_k_dense_replace and i is a multiple of moe_layer_freq, as
// DeepSeekMoE's modelling code does; the others stay dense.
func (c *hfConfig) deepseekLayers(dense Block, kinds []Block) error {
	moe, err := c.experts(dense, "n_routed_experts", "moe_intermediate_size", "n_shared_experts")
	if err != nil {
		return err
	}
	first, err := c.optional("first_k_dense_replace", 0, 0)
	if err != nil {
		return err
	}
	freq, err := c.optional("moe_layer_freq", 1, 1)
	if err != nil {
		return err
	}
	for i := range kinds {
		if i >= first && i%freq == 0 {
			kinds[i] = moe
		}
	}
	return nil
}

// gpt2 reads GPT-2: n_embd, n_layer, n_head, n_inner (null: 4·n_embd),
// vocab_size and n_positions, learned positions, a GELU MLP, biases
// everywhere and the head tied to the embedding.
func (c *hfConfig) gpt2() ([]Block, error) {
	hidden, heads, _, err := c.attention("n_embd", "n_head")
	if err != nil {
		return nil, err
	}
	layers, err := c.layerCount("n_layer")
	if err != nil {
		return nil, err
	}
	ffn, err := c.optional("n_inner", 4*hidden, 1)
	if err != nil {
		return nil, err
	}
	vocab, err := c.positive("vocab_size")
	if err != nil {
		return nil, err
	}
	positions, err := c.positive("n_positions")
	if err != nil {
		return nil, err
	}
	tied, err := c.flag("tie_word_embeddings", true)
	if err != nil {
		return nil, err
	}
	return []Block{
		{Kind: Embedding, Count: 1, Hidden: hidden, Vocab: vocab, Positions: positions},
		{Kind: Decoder, Count: layers, Hidden: hidden, Heads: heads, FFN: ffn, Bias: true},
		{Kind: Head, Count: 1, Hidden: hidden, Vocab: vocab, Bias: true, Tied: tied},
	}, nil
}

// gptNeoX reads GPT-NeoX (Pythia): rotary positions, a GELU MLP, biases
// everywhere, an untied head unless tie_word_embeddings says otherwise.
// Its parallel residual changes neither FLOPs nor parameters.
func (c *hfConfig) gptNeoX() ([]Block, error) {
	d, err := c.decoderShape()
	if err != nil {
		return nil, err
	}
	hidden, heads, layers, ffn, vocab, tied := d.hidden, d.heads, d.layers, d.ffn, d.vocab, d.tied
	bias, err := c.flag("attention_bias", true)
	if err != nil {
		return nil, err
	}
	if !bias {
		return nil, c.fail("attention_bias", "false is not modelled: GPT-NeoX layers are priced with their biases")
	}
	return []Block{
		{Kind: Embedding, Count: 1, Hidden: hidden, Vocab: vocab},
		{Kind: Decoder, Count: layers, Hidden: hidden, Heads: heads, FFN: ffn, Bias: true},
		{Kind: Head, Count: 1, Hidden: hidden, Vocab: vocab, Bias: true, Tied: tied},
	}, nil
}

// runs merges consecutive equal layers into blocks.
func runs(layers []Block) []Block {
	var out []Block
	for _, l := range layers {
		if n := len(out); n > 0 && sameLayer(out[n-1], l) {
			out[n-1].Count++
			continue
		}
		l.Count = 1
		out = append(out, l)
	}
	return out
}

func sameLayer(a, b Block) bool {
	a.Count, b.Count = 0, 0
	return a == b
}
