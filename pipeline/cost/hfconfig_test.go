package cost

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readHF(t *testing.T, name string) Network {
	t.Helper()
	n, err := ReadHFConfig(filepath.Join("testdata", "hf", name))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHFConfigParams checks the parameter count of each real config in
// testdata/hf against the checkpoint's published total (testdata/hf/
// README.md), each also worked out here from the layer shapes.
func TestHFConfigParams(t *testing.T) {
	tests := []struct {
		file string
		want float64
		hand float64
	}{
		// 2·32000·4096 embeddings and head, 32 layers of 4·4096² attention,
		// 3·4096·11008 SwiGLU and two RMSNorms, the final norm.
		{"llama-2-7b.json", 6_738_415_616, 2*32000*4096 + 32*(4*4096*4096+3*4096*11008+2*4096) + 4096},
		// GQA with 8 of 32 heads: K and V are 4096×1024.
		{"mistral-7b-v0.1.json", 7_241_732_096, 2*32000*4096 + 32*(2*4096*4096+2*4096*1024+3*4096*14336+2*4096) + 4096},
		// Tied: one 151936×896 matrix; Q, K, V biases 896 + 2·128.
		{"qwen2-0.5b.json", 494_032_768, 151936*896 + 24*(2*896*896+2*896*128+896+2*128+3*896*4864+2*896) + 896},
		// Tied; 1024 learned positions; per layer 12h² weights, 9h linear
		// biases and two LayerNorms (4h); the final LayerNorm 2h.
		{"gpt2.json", 124_439_808, 50257*768 + 1024*768 + 12*(12*768*768+9*768+4*768) + 2*768},
		// Untied; per layer 12h² + 13h as GPT-2's; final LayerNorm.
		{"pythia-160m.json", 162_322_944, 2*50304*768 + 12*(12*768*768+13*768) + 2*768},
		// 8 experts of 3·4096·14336 and a 4096×8 router per layer.
		{"mixtral-8x7b-v0.1.json", 46_702_792_704, 2*32000*4096 + 32*(2*4096*4096+2*4096*1024+8*3*4096*14336+4096*8+2*4096) + 4096},
	}
	for _, tt := range tests {
		n := readHF(t, tt.file)
		if tt.hand != tt.want {
			t.Errorf("%s: the hand count %.0f is not the published %.0f", tt.file, tt.hand, tt.want)
		}
		if got := n.Params(); got != tt.want {
			t.Errorf("%s: %.0f parameters, want %.0f", tt.file, got, tt.want)
		}
	}
}

// TestHFConfigMatchesPresets: the Llama-2-7B config gives the llama-7b
// preset's parameter count and, layer for layer, its costs; the
// DeepSeekMoE config gives the deepseek-moe-16b preset's.
func TestHFConfigMatchesPresets(t *testing.T) {
	for _, tt := range []struct{ file, preset string }{
		{"llama-2-7b.json", "llama-7b"},
		{"deepseek-moe-16b-base.json", "deepseek-moe-16b"},
	} {
		n := readHF(t, tt.file)
		p, err := LookupNetwork(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		if n.Params() != p.Params() {
			t.Errorf("%s: %.0f parameters, preset %s %.0f", tt.file, n.Params(), tt.preset, p.Params())
		}
		if !reflect.DeepEqual(n.Blocks, p.Blocks) {
			t.Errorf("%s: blocks %+v\npreset %s: %+v", tt.file, n.Blocks, tt.preset, p.Blocks)
		}
		for _, flash := range []bool{false, true} {
			got, err := n.layers(2, 4096, flash)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := p.layers(2, 4096, flash)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s flash=%v: layer costs differ from preset %s", tt.file, flash, tt.preset)
			}
		}
	}
}

// TestHFConfigMoELayers: DeepSeekMoE's dense first layers and
// moe_layer_freq place MoE layers as its modelling code does (layer i is
// MoE when i ≥ first_k_dense_replace and i mod moe_layer_freq = 0).
func TestHFConfigMoELayers(t *testing.T) {
	cfg := `{"model_type": "deepseek", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 6,
		"intermediate_size": 256, "vocab_size": 100, "moe_intermediate_size": 32, "n_routed_experts": 8,
		"num_experts_per_tok": 2, "n_shared_experts": 1, "first_k_dense_replace": 2, "moe_layer_freq": 2}`
	n, err := ParseHFConfig([]byte(cfg), "moe.json")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range n.Blocks {
		for range b.Count {
			kinds = append(kinds, b.Kind.String())
		}
	}
	// Layers 0, 1 dense (first two), 2 MoE, 3 dense, 4 MoE, 5 dense.
	want := "embedding decoder decoder moe decoder moe decoder head"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("layers %q, want %q", got, want)
	}
	moe := n.Blocks[2]
	if moe.Experts != 8 || moe.Active != 2 || moe.Shared != 1 || moe.FFN != 32 {
		t.Errorf("MoE block %+v: want 8 experts, top 2, 1 shared, width 32", moe)
	}
}

// TestHFConfigErrors: each bad config is a one-line error naming the file
// and the field.
func TestHFConfigErrors(t *testing.T) {
	llama := func(drop string, extra string) string {
		fields := map[string]string{"model_type": `"llama"`, "hidden_size": "64", "num_attention_heads": "4",
			"num_hidden_layers": "2", "intermediate_size": "128", "vocab_size": "100"}
		var parts []string
		for _, k := range []string{"model_type", "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size", "vocab_size"} {
			if k != drop {
				parts = append(parts, `"`+k+`": `+fields[k])
			}
		}
		if extra != "" {
			parts = append(parts, extra)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	tests := []struct {
		cfg, field string
	}{
		{`{"model_type": "t5", "d_model": 512}`, `"model_type"`},
		{`{"hidden_size": 64}`, `"model_type"`},
		{llama("num_hidden_layers", ""), `"num_hidden_layers"`},
		{llama("vocab_size", ""), `"vocab_size"`},
		{llama("", `"num_key_value_heads": 3`), `"num_key_value_heads"`},
		{llama("", `"head_dim": 32`), `"head_dim"`},
		{llama("", `"attention_bias": true`), `"attention_bias"`},
		{llama("", `"tie_word_embeddings": "yes"`), `"tie_word_embeddings"`},
		{strings.Replace(llama("", ""), `"hidden_size": 64`, `"hidden_size": 64.5`, 1), `"hidden_size"`},
		{strings.Replace(llama("", ""), `"num_attention_heads": 4`, `"num_attention_heads": 5`, 1), `"num_attention_heads"`},
		{strings.Replace(llama("", `"num_local_experts": 4, "num_experts_per_tok": 8`), `"llama"`, `"mixtral"`, 1), `"num_experts_per_tok"`},
		{strings.Replace(llama("", `"num_experts_per_tok": 2`), `"llama"`, `"mixtral"`, 1), `"num_local_experts"`},
		{`{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100}`, `"n_positions"`},
		{`[1, 2]`, "not a JSON object"},
	}
	for _, tt := range tests {
		_, err := ParseHFConfig([]byte(tt.cfg), "conf.json")
		if err == nil {
			t.Errorf("%s: no error", tt.cfg)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "conf.json") || !strings.Contains(msg, tt.field) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q should be one line naming conf.json and %s", tt.cfg, msg, tt.field)
		}
	}
	if _, err := ReadHFConfig(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v", err)
	}
}

// TestHFConfigTiedHeadHoldsCopy: a tied head's stage still holds the
// embedding matrix (as Megatron-LM's last stage keeps a copy), so the
// stages' parameters exceed Params by exactly one V×h matrix.
func TestHFConfigTiedHeadHoldsCopy(t *testing.T) {
	n := readHF(t, "gpt2.json")
	gpu, _ := LookupGPU("a100")
	link, _ := LookupLink("nvlink")
	g, err := NewGPUModel(GPUConfig{Network: n, GPU: gpu, Link: link, Microbatch: 1, Sequence: 1024}, 2)
	if err != nil {
		t.Fatal(err)
	}
	held := g.Params(0) + g.Params(1)
	if want := n.Params() + 50257*768; held != want {
		t.Errorf("stages hold %.0f parameters, want %.0f (Params plus the head's copy)", held, want)
	}
}
