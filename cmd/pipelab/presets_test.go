package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/request"
)

func TestPresetsJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"presets", "--format", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var list request.PresetsReport
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.GPUs) != len(cost.GPUs()) || len(list.Links) != len(cost.Links()) || len(list.Models) != len(cost.Networks()) {
		t.Fatalf("%d GPUs, %d links, %d models listed", len(list.GPUs), len(list.Links), len(list.Models))
	}
	for i, m := range cost.Networks() {
		got := list.Models[i]
		if got.Name != m.Name || got.Layers != m.LayerCount() || got.Params != m.Params() || len(got.Blocks) != len(m.Blocks) {
			t.Errorf("model %d listed as %+v", i, got)
		}
	}
	// The A100 datasheet: 312 dense bf16 TFLOP/s.
	if list.GPUs[0].Name != "a100" || list.GPUs[0].PeakTFLOPS != 312 {
		t.Errorf("first GPU %+v", list.GPUs[0])
	}
}

func TestPresetsText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"presets"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"h200", "ib-ndr", "vlm-7b", "deepseek-moe-16b", "vision-encoder", "moe"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if code := run([]string{"presets", "--format", "csv"}, &stdout, &stderr); code != 2 {
		t.Errorf("--format csv: exit %d, want 2", code)
	}
}
