package cost

import (
	"encoding/json"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// This file reads what Qwen3, Qwen3-MoE and DeepSeek-V3 configs add to the
// Llama family's fields (docs/presets.md).

// headDimFree reports whether the config's head_dim is its own size, not
// hidden_size/num_attention_heads (Qwen3: Qwen3-30B-A3B has 32 heads of
// 128 on a hidden size of 2048).
func (c *hfConfig) headDimFree() bool { return c.kind == "qwen3" || c.kind == "qwen3_moe" }

// attentionShape sets what the config says of the attention beyond heads
// and key/value heads: Qwen3's head_dim, and DeepSeek-V3's latent
// attention (q_lora_rank, null for none; kv_lora_rank; qk_nope_head_dim,
// qk_rope_head_dim and v_head_dim). Qwen3's per-head query and key norms
// (2·head_dim gains a layer) are left out of the parameters.
func (c *hfConfig) attentionShape(dense Block) (Block, error) {
	var err error
	switch c.kind {
	case "qwen3", "qwen3_moe":
		if dense.HeadDim, err = c.optional("head_dim", dense.Hidden/dense.Heads, 1); err != nil {
			return dense, err
		}
		if dense.HeadDim == dense.Hidden/dense.Heads {
			dense.HeadDim = 0
		}
	case "deepseek_v3":
		m := &dense.MLA
		if m.QLoRA, err = c.optional("q_lora_rank", 0, 1); err != nil {
			return dense, err
		}
		if m.KVLoRA, err = c.positive("kv_lora_rank"); err != nil {
			return dense, err
		}
		if m.QKNope, err = c.positive("qk_nope_head_dim"); err != nil {
			return dense, err
		}
		if m.QKRope, err = c.positive("qk_rope_head_dim"); err != nil {
			return dense, err
		}
		if m.VHead, err = c.positive("v_head_dim"); err != nil {
			return dense, err
		}
		dense.KVHeads = 0 // MLA's keys and values come from the latent
	}
	return dense, nil
}

// qwen3MoELayers makes layer i of kinds an MoE layer, as Qwen3-MoE's
// modelling code does, when i is not in mlp_only_layers and i+1 is a
// multiple of decoder_sparse_step (default 1): num_experts routed experts
// of width moe_intermediate_size, num_experts_per_tok of them a token, no
// shared experts.
func (c *hfConfig) qwen3MoELayers(dense Block, kinds []Block) error {
	moe, err := c.experts(dense, "num_experts", "moe_intermediate_size", "")
	if err != nil {
		return err
	}
	step, err := c.optional("decoder_sparse_step", 1, 1)
	if err != nil {
		return err
	}
	denseOnly, err := c.layerList("mlp_only_layers", len(kinds))
	if err != nil {
		return err
	}
	for i := range kinds {
		if !denseOnly[i] && (i+1)%step == 0 {
			kinds[i] = moe
		}
	}
	return nil
}

// layerList reads an optional list of layer indices below layers.
func (c *hfConfig) layerList(field string, layers int) (map[int]bool, error) {
	out := map[int]bool{}
	if !c.has(field) {
		return out, nil
	}
	var list []float64
	if err := json.Unmarshal(c.fields[field], &list); err != nil {
		return nil, c.fail(field, "want a list of layer indices, got %s", inputfile.Name(string(c.fields[field])))
	}
	for _, f := range list {
		if f != float64(int(f)) || f < 0 || int(f) >= layers {
			return nil, c.fail(field, "want layer indices from 0 to %d, got %g", layers-1, f)
		}
		out[int(f)] = true
	}
	return out, nil
}
