package cost

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The readers of user files return an error, never panic, on any input.

func FuzzParseHFConfig(f *testing.F) {
	for _, name := range []string{"llama-2-7b.json", "gpt2.json", "deepseek-moe-16b-base.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hf", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"model_type": "mixtral", "num_local_experts": 1e300}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, err := ParseHFConfig(data, "f.json"); err == nil {
			if _, err := n.Layers(1, 16); err != nil {
				t.Errorf("a config that parses gives no layers: %v", err)
			}
		}
	})
}

func FuzzParseHardware(f *testing.F) {
	f.Add([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\nlink: {name: l, latency: 1e-6, bandwidth: 1e10}\nranks_per_node: 4\ninter_node_link: {name: x, latency: 1e-6, bandwidth: 1e9}\n"))
	f.Add([]byte("gpu: [1, 2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if h, err := ParseHardware(data, "f.yaml"); err == nil && (h.GPU.PeakFLOPS <= 0 || h.Link.Bandwidth <= 0) {
			t.Errorf("accepted %+v", h)
		}
	})
}

func FuzzParseCostsCSV(f *testing.F) {
	f.Add([]byte("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,1,1,1,0.5\n1,1,1,1,\n"))
	f.Add([]byte("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,\"1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := ParseCostsCSV(data, "f.csv"); err == nil && len(m.Comm) != len(m.Stages)-1 {
			t.Errorf("%d stages, %d transfers", len(m.Stages), len(m.Comm))
		}
	})
}

func FuzzProfile(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "profile", "rank0.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`[{"ph": "X", "name": "PP:3F0", "dur": 1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p profileSums
		if err := p.read(bytes.NewReader(data), "f.json"); err == nil {
			if m, err := p.measured("f.json"); err == nil && len(m.Comm) != len(m.Stages)-1 {
				t.Errorf("%d stages, %d transfers", len(m.Stages), len(m.Comm))
			}
		}
	})
}
