package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// writeSpecWithConfig writes config beside a spec whose cost block is cost,
// and returns the spec's path.
func writeSpecWithConfig(t *testing.T, config, costLine string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hf", "model.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(base+costLine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// model_config, taken from the spec's directory, builds the GPU model's
// network from a HuggingFace config: the Llama-2-7B config gives the
// llama-7b preset's network (pipeline/cost's test), so its runs time as
// model: llama-7b's do, under their own run names.
func TestSpecModelConfig(t *testing.T) {
	llama, err := os.ReadFile(filepath.Join("..", "pipeline", "cost", "testdata", "hf", "llama-2-7b.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeSpecWithConfig(t, string(llama), "cost: {cost_model: gpu, model_config: hf/model.json}")
	s, err := ReadSpecFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Cost.GPUConfig()
	if err != nil {
		t.Fatal(err)
	}
	preset, _ := cost.LookupNetwork("llama-7b")
	if cfg.Network.Params() != preset.Params() || cfg.Network.Describe() != preset.Describe() {
		t.Errorf("network %s (%.0f parameters), want llama-7b's %s (%.0f)", cfg.Network.Describe(), cfg.Network.Params(), preset.Describe(), preset.Params())
	}
	byPreset, err := ParseSpec("p.yaml", []byte(base+"cost: {cost_model: gpu, model: llama-7b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := gpuModel(s.Cost, 4)
	b, _ := gpuModel(byPreset.Cost, 4)
	for st := range 4 {
		if a.Stage(st) != b.Stage(st) || a.StaticBytes(st) != b.StaticBytes(st) {
			t.Errorf("stage %d: %+v, preset %+v", st, a.Stage(st), b.Stage(st))
		}
	}
	if got := s.Cost.label(); !strings.Contains(got, "hf-model.json") || got == byPreset.Cost.label() {
		t.Errorf("label %q should name the config and differ from the preset's %q", got, byPreset.Cost.label())
	}
}

// A bad model_config is an error naming the spec file, its line, the key
// and the config's field.
func TestSpecModelConfigRejects(t *testing.T) {
	tests := []struct {
		config, cost string
		want         []string
	}{
		{`{"model_type": "t5"}`, "cost: {cost_model: gpu, model_config: hf/model.json}", []string{"s.yaml:15:", "cost.model_config", "model.json", `"model_type"`}},
		{`{"model_type": "llama", "hidden_size": 64}`, "cost: {cost_model: gpu, model_config: hf/model.json}", []string{"s.yaml:15:", "cost.model_config", `"num_attention_heads"`}},
		{`{}`, "cost: {cost_model: gpu, model_config: hf/missing.json}", []string{"s.yaml:15:", "cost.model_config", "missing.json"}},
		{`{}`, "cost: {cost_model: gpu, model: llama-7b, model_config: hf/model.json}", []string{"s.yaml:15:", "cost.model_config: model and model_config exclude each other"}},
		{`{}`, "cost: {cost_model: unit, model_config: hf/model.json}", []string{"s.yaml:15:", "cost.model_config: needs cost_model: gpu"}},
	}
	for _, tt := range tests {
		_, err := ReadSpecFile(writeSpecWithConfig(t, tt.config, tt.cost))
		if err == nil {
			t.Errorf("%s with %s: no error", tt.cost, tt.config)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s with %s: error %q should be one line naming %s", tt.cost, tt.config, err, w)
			}
		}
	}
}

// hardware, taken from the spec's directory, gives the GPU and links; a
// file with the a100 and nvlink presets' numbers times as gpu: a100,
// link: nvlink does, and a bad file is an error naming the key.
func TestSpecHardware(t *testing.T) {
	dir := t.TempDir()
	hw := "gpu: {name: a100, peak_flops: 312e12, memory_bytes: 80e9}\nlink: {name: nvlink, latency: 3e-6, bandwidth: 450e9}\n"
	if err := os.WriteFile(filepath.Join(dir, "hw.yaml"), []byte(hw), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte(base+"cost: {cost_model: gpu, hardware: hw.yaml}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSpecFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	byPreset, err := ParseSpec("p.yaml", []byte(base+"cost: {cost_model: gpu, gpu: a100, link: nvlink}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := gpuModel(s.Cost, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := gpuModel(byPreset.Cost, 4)
	for st := range 4 {
		if a.Stage(st) != b.Stage(st) {
			t.Errorf("stage %d: %+v, presets %+v", st, a.Stage(st), b.Stage(st))
		}
	}
	if s.Cost.label() == byPreset.Cost.label() || !strings.Contains(s.Cost.label(), "hardware/hw.yaml") {
		t.Errorf("label %q should name the hardware file", s.Cost.label())
	}
	for _, tt := range []struct{ text, want string }{
		{"cost: {cost_model: gpu, hardware: hw.yaml, gpu: h100}", "drop gpu and link"},
		{"cost: {cost_model: gpu, hardware: none.yaml}", "none.yaml"},
	} {
		if err := os.WriteFile(spec, []byte(base+tt.text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSpecFile(spec)
		if err == nil || !strings.Contains(err.Error(), "s.yaml:15: cost.hardware") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want s.yaml:15: cost.hardware and %q", tt.text, err, tt.want)
		}
	}
}
