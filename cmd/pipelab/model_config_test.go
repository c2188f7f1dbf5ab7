package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// llama2Config is the Llama-2-7B config.json of pipeline/cost's testdata.
var llama2Config = filepath.Join("..", "..", "pipeline", "cost", "testdata", "hf", "llama-2-7b.json")

// --model-config with the Llama-2-7B config times a schedule exactly as
// --model llama-7b does (the config gives the preset's layers, a test of
// pipeline/cost): every figure of the report but the cost's name agrees.
func TestModelConfigMatchesPreset(t *testing.T) {
	for _, cmd := range []string{"simulate", "compare"} {
		args := []string{cmd, "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--gpu", "a100", "--format", "json"}
		if cmd == "compare" {
			args = []string{cmd, "--ranks", "4", "--microbatches", "8", "--gpu", "a100", "--format", "json"}
		}
		var preset, config map[string]any
		runJSON(t, append(slicesClone(args), "--model", "llama-7b"), &preset)
		runJSON(t, append(slicesClone(args), "--model-config", llama2Config), &config)
		dropCostNames(preset)
		dropCostNames(config)
		if !reflect.DeepEqual(preset, config) {
			t.Errorf("%s: --model-config report differs from --model llama-7b:\n%v\n%v", cmd, config, preset)
		}
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// dropCostNames removes the "cost_model" strings (which name the model) at any
// depth of a decoded report.
func dropCostNames(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "cost_model")
		for _, x := range v {
			dropCostNames(x)
		}
	case []any:
		for _, x := range v {
			dropCostNames(x)
		}
	}
}

// Bad --model-config input: exit status 2 and one line naming the flag,
// the file and the field.
func TestModelConfigErrors(t *testing.T) {
	dir := t.TempDir()
	t5 := filepath.Join(dir, "t5.json")
	if err := os.WriteFile(t5, []byte(`{"model_type": "t5", "d_model": 512}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model-config", t5}, []string{"--model-config", "t5.json", `"model_type"`, `"t5"`}},
		{[]string{"tune", "--ranks", "2", "--model-config", t5}, []string{"--model-config", "t5.json", `"model_type"`}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "llama-7b", "--model-config", t5}, []string{"--model and --model-config exclude each other"}},
	}
	for _, tt := range tests {
		refusedAsBadInput(t, tt.args, tt.want...)
	}
}

// tune with --model-config chooses what it chooses with the preset.
func TestModelConfigTune(t *testing.T) {
	args := []string{"tune", "--ranks", "2", "--microbatches", "4", "--kind", "1f1b,zb-h1", "--format", "json"}
	var preset, config map[string]any
	runJSON(t, append(slicesClone(args), "--model", "llama-7b"), &preset)
	runJSON(t, append(slicesClone(args), "--model-config", llama2Config), &config)
	if config["model"] != llama2Config {
		t.Errorf("model %v, want the config's path", config["model"])
	}
	delete(preset, "model")
	delete(config, "model")
	if !reflect.DeepEqual(preset, config) {
		t.Errorf("--model-config tune report differs from --model llama-7b:\n%v\n%v", config, preset)
	}
}
