package cost

import (
	"os"
	"testing"
)

// presetConfig is the GPU timing model of the named presets for
// microbatches of one 2048-token sample.
func presetConfig(t *testing.T, model, gpu, link string) GPUConfig {
	t.Helper()
	m, err := LookupNetwork(model)
	if err != nil {
		t.Fatal(err)
	}
	g, err := LookupGPU(gpu)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LookupLink(link)
	if err != nil {
		t.Fatal(err)
	}
	return GPUConfig{Network: m, GPU: g, Link: l, Microbatch: 1, Sequence: 2048}
}

func writeText(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
