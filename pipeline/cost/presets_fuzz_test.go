package cost

import (
	"bytes"
	"math"
	"testing"
)

// FuzzParseHardwarePresets checks the reader of a hardware presets file
// (what WriteHardwarePresets writes, `pipelab presets --hardware`) on any
// input: it never panics, and every GPU and link it accepts has each
// number within its hard range, as FuzzParseHardware checks a hardware
// file's. The shipped presets seed it.
func FuzzParseHardwarePresets(f *testing.F) {
	var b bytes.Buffer
	if err := WriteHardwarePresets(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("gpus: []\nlinks: []\n"))
	f.Add([]byte("gpus: [{name: g, peak_flops: 0x1p50, memory_bytes: 4e10}]\nlinks: [{name: l, latency: 1e-6, bandwidth: 50}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, ls, err := ParseHardwarePresets(data, "p.yaml")
		if err != nil {
			return
		}
		in := func(q quantity, x float64) {
			if math.IsNaN(x) || x < q.lo || x > q.hi || (x == 0 && q.lo != 0) || x < 0 {
				t.Errorf("accepted %g %s for %s", x, q.unit, q.what)
			}
		}
		for _, g := range gs {
			in(peakFLOPS, g.PeakFLOPS)
			in(gpuMemory, g.MemoryBytes)
		}
		for _, l := range ls {
			in(bandwidth, l.Bandwidth)
			in(latency, l.Latency)
		}
	})
}
