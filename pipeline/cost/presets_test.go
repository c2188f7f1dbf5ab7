package cost

import (
	"math"
	"strings"
	"testing"
)

func TestLookupUnknownListsNames(t *testing.T) {
	tests := []struct {
		lookup func(string) error
		known  string
	}{
		{func(n string) error { _, err := LookupGPU(n); return err }, "a100, h100, h200"},
		{func(n string) error { _, err := LookupLink(n); return err }, "nvlink, pcie, ib-ndr"},
		{func(n string) error { _, err := LookupNetwork(n); return err }, "gpt-1.3b, llama-7b"},
	}
	for _, tt := range tests {
		err := tt.lookup("tpu-v9")
		if err == nil || !strings.Contains(err.Error(), "tpu-v9") || !strings.Contains(err.Error(), tt.known) {
			t.Errorf("unknown preset error %v should name tpu-v9 and list %s", err, tt.known)
		}
	}
}

func TestModelParamsMatchModelCards(t *testing.T) {
	tests := []struct {
		name string
		want float64
		tol  float64 // relative
		why  string
	}{
		{"llama-7b", 6738415616, 0, "Hugging Face parameter count of LLaMA-7B"},
		{"llama-13b", 13015864320, 0, "Hugging Face parameter count of Llama-2-13B"},
		{"llama-70b", 68976648192, 0, "Hugging Face parameter count of Llama-2-70B"},
		{"deepseek-moe-16b", 16.4e9, 0.005, "DeepSeekMoE paper: 16.4B total parameters"},
		{"vlm-7b", 7.06e9, 0.005, "LLaVA-1.5-7B: about 7.06B (biases of the ViT and projector not counted here)"},
		// GPT-3 XL ties its head to the embedding: 1.3B without the head copy.
		{"gpt-1.3b", 1.3e9 + 50257*2048 + 2048, 0.02, "GPT-3 XL: 1.3B with a tied head, here untied"},
	}
	for _, tt := range tests {
		m, err := LookupNetwork(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Params(); math.Abs(got-tt.want) > tt.tol*tt.want {
			t.Errorf("%s: %.0f parameters, want %.0f (%s)", tt.name, got, tt.want, tt.why)
		}
	}
}

func TestPresetsAreUsable(t *testing.T) {
	for _, m := range Networks() {
		if m.Source == "" {
			t.Errorf("model %s has no source", m.Name)
		}
		if _, err := m.Layers(1, 4096); err != nil {
			t.Errorf("model %s: %v", m.Name, err)
		}
	}
	for _, g := range GPUs() {
		if g.PeakFLOPS <= 0 || g.MemoryBytes <= 0 || g.Source == "" {
			t.Errorf("GPU %+v incomplete", g)
		}
	}
	for _, l := range Links() {
		if l.Bandwidth <= 0 || l.Latency <= 0 || l.Source == "" {
			t.Errorf("link %+v incomplete", l)
		}
	}
}

func TestLookupModelCopies(t *testing.T) {
	m, _ := LookupNetwork("llama-7b")
	m.Blocks[1].Count = 1
	again, _ := LookupNetwork("llama-7b")
	if again.Blocks[1].Count != 32 {
		t.Errorf("changing a looked-up model changed the preset: %d layers", again.Blocks[1].Count)
	}
}
