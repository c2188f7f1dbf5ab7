package cost

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The readers of user files return an error, never panic, on any input,
// and every number they accept is finite and within its range (ranges.go,
// hfMax): docs/robustness.md records the runs ("Readers").

// measuredInRange fails t unless every time of m passes CheckTime and m
// has one transfer fewer than stages.
func measuredInRange(t *testing.T, m Measured) {
	if len(m.Comm) != len(m.Stages)-1 || len(m.Stages) > MaxStages {
		t.Errorf("%d stages, %d transfers", len(m.Stages), len(m.Comm))
	}
	for s, st := range m.Stages {
		for _, x := range []float64{st.TF, st.TB, st.TW} {
			if err := CheckTime(x); err != nil {
				t.Errorf("stage %d: accepted %g s: %v", s, x, err)
			}
		}
	}
	for s, c := range m.Comm {
		if err := CheckTime(c); err != nil {
			t.Errorf("transfer %d: accepted %g s: %v", s, c, err)
		}
	}
}

func FuzzParseHFConfig(f *testing.F) {
	for _, name := range []string{"llama-2-7b.json", "gpt2.json", "deepseek-moe-16b-base.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hf", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"model_type": "mixtral", "num_local_experts": 1e300}`))
	f.Add([]byte(`{"model_type": "llama", "hidden_size": 1e5, "num_attention_heads": 1, "num_hidden_layers": 4096, "intermediate_size": 1048576, "vocab_size": 4194304}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseHFConfig(data, "f.json")
		if err != nil {
			return
		}
		layers, err := n.Layers(1, 16)
		if err != nil {
			t.Errorf("a config that parses gives no layers: %v", err)
		}
		for _, b := range n.Blocks {
			for _, v := range []struct {
				field string
				x     int
			}{{"hidden_size", b.Hidden}, {"num_attention_heads", b.Heads}, {"intermediate_size", b.FFN}, {"vocab_size", b.Vocab},
				{"num_local_experts", b.Experts}, {"num_experts_per_tok", b.Active}, {"n_shared_experts", b.Shared}, {"n_positions", b.Positions}} {
				if v.x < 0 || v.x > hfMax[v.field] {
					t.Errorf("accepted %s = %d, beyond %d", v.field, v.x, hfMax[v.field])
				}
			}
		}
		if n.LayerCount() > hfMaxLayers+2 {
			t.Errorf("accepted %d layers", n.LayerCount())
		}
		for _, l := range layers {
			for _, x := range []float64{l.Forward, l.BackwardInput, l.BackwardWeight, l.Params, l.Activation, l.WeightGrad, l.Output} {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Errorf("a layer of %+v", l)
				}
			}
		}
	})
}

func FuzzParseHardware(f *testing.F) {
	f.Add([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\nlink: {name: l, latency: 1e-6, bandwidth: 1e10}\nranks_per_node: 4\ninter_node_link: {name: x, latency: 1e-6, bandwidth: 1e9}\n"))
	f.Add([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\nlink: {name: l, latency: 1e-6, bandwidth: 1e10, collective_bandwidth: 8e9}\n"))
	f.Add([]byte("gpu: [1, 2]\n"))
	f.Add([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, action_gap: 1e-3}\nlink: {name: l, latency: 1e-6, bandwidth: 1e10}\n"))
	f.Add([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\nlink: {name: l, latency: 1e-6, bandwidth: 1e11, p2p_bandwidth: 7e10, p2p_overhead: 2e-4}\n"))
	f.Add([]byte("gpu: {name: g, peak_flops: 0x1p50, memory_bytes: 4e10}\nlink: {name: l, latency: 1e-6, bandwidth: 50}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHardware(data, "f.yaml")
		if err != nil {
			return
		}
		in := func(q quantity, x float64) {
			if math.IsNaN(x) || x < q.lo || x > q.hi || (x == 0 && q.lo != 0) || (x < 0) {
				t.Errorf("accepted %g %s for %s", x, q.unit, q.what)
			}
		}
		in(peakFLOPS, h.GPU.PeakFLOPS)
		in(gpuMemory, h.GPU.MemoryBytes)
		in(actionGap, h.ActionGap)
		for _, l := range []Link{h.Link, h.InterNode} {
			if l.Name == "" && l == (Link{}) {
				continue // no inter-node link
			}
			in(bandwidth, l.Bandwidth)
			in(latency, l.Latency)
			in(p2pOverhead, l.P2POverhead)
			if l.P2PBandwidth != 0 {
				in(bandwidth, l.P2PBandwidth)
			}
			if l.P2PBandwidth > l.Bandwidth {
				t.Errorf("accepted a point-to-point bandwidth %g above the link's %g", l.P2PBandwidth, l.Bandwidth)
			}
			if l.CollectiveBandwidth != 0 {
				in(bandwidth, l.CollectiveBandwidth)
			}
			if l.CollectiveBandwidth > l.Bandwidth {
				t.Errorf("accepted a collective bandwidth %g above the link's %g", l.CollectiveBandwidth, l.Bandwidth)
			}
		}
		if h.Efficiency < 0 || h.Efficiency > 1 || math.IsNaN(h.Efficiency) || h.RanksPerNode < 0 || h.RanksPerNode > 1<<20 {
			t.Errorf("accepted efficiency %g, %d ranks per node", h.Efficiency, h.RanksPerNode)
		}
	})
}

func FuzzParseCostsCSV(f *testing.F) {
	f.Add([]byte("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,1,1,1,0.5\n1,1,1,1,\n"))
	f.Add([]byte("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,\"1\n"))
	f.Add([]byte("stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,0x1p3,1_000,1e308,NaN\n1,1e-300,1,1,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := ParseCostsCSV(data, "f.csv"); err == nil {
			measuredInRange(t, m)
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
	f.Add([]byte(`[{"ph": "X", "name": "PP:0F12345678901234567890", "dur": 1e20}, {"ph": "X", "name": "PP:0B0", "dur": 1e-300}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p profileSums
		if err := p.read(bytes.NewReader(data), "f.json"); err == nil {
			if m, err := p.measured("f.json"); err == nil {
				measuredInRange(t, m)
			}
		}
	})
}
