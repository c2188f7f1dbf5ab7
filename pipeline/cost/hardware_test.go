package cost

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// The presets printed as hardware entries read back as the presets.
func TestHardwarePresetsRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHardwarePresets(&b); err != nil {
		t.Fatal(err)
	}
	gs, ls, err := ParseHardwarePresets(b.Bytes(), "presets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gs, GPUs()) || !reflect.DeepEqual(ls, Links()) {
		t.Errorf("read back %+v %+v\nwant %+v %+v", gs, ls, GPUs(), Links())
	}
}

// entry returns the printed preset entry (its "  - name: NAME" line and
// the lines under it) re-indented under key, as a hardware file takes it.
func entry(t *testing.T, printed, key, name string) string {
	t.Helper()
	lines := strings.Split(printed, "\n")
	for i, l := range lines {
		if l != "  - name: "+name {
			continue
		}
		out := []string{key + ":", "  name: " + name}
		for _, m := range lines[i+1:] {
			if !strings.HasPrefix(m, "    ") {
				break
			}
			out = append(out, m[2:])
		}
		return strings.Join(out, "\n") + "\n"
	}
	t.Fatalf("no entry %q in %s", name, printed)
	return ""
}

// A hardware file made of two printed preset entries prices as the
// presets do.
func TestHardwareFileOfPresetEntries(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHardwarePresets(&b); err != nil {
		t.Fatal(err)
	}
	file := entry(t, b.String(), "gpu", "h100") + entry(t, b.String(), "link", "ib-ndr")
	path := filepath.Join(t.TempDir(), "hw.yaml")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHardware(path)
	if err != nil {
		t.Fatal(err)
	}
	preset := presetConfig(t, "llama-7b", "h100", "ib-ndr")
	if got := h.Apply(preset); !reflect.DeepEqual(got, preset) {
		t.Errorf("the file gives %+v\nwant the presets' %+v", got, preset)
	}
}

// Two nodes of four ranks: a message between ranks 3 and 4 crosses the
// inter-node link, one between 2 and 3 the node's own; a ring all-reduce
// over ranks of both nodes runs at the slower link's pace (RingAllReduce
// on the inter-node link).
func TestHardwareNodes(t *testing.T) {
	file := `gpu: {name: g, peak_flops: 100e12, efficiency: 0.4, memory_bytes: 40e9}
link: {name: fast, latency: 2e-6, bandwidth: 200e9}
ranks_per_node: 4
inter_node_link: {name: slow, latency: 10e-6, bandwidth: 20e9}
`
	h, err := ParseHardware([]byte(file), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if h.RanksPerNode != 4 || h.Efficiency != 0.4 || h.InterNode.Name != "slow" || h.GPU.PeakFLOPS != 100e12 {
		t.Fatalf("read %+v", h)
	}
	cfg := h.Apply(GPUConfig{Network: decoderOnly(8, 1024, 16), Microbatch: 2, Sequence: 512})
	g, err := NewGPUModel(cfg, 8)
	if err != nil {
		t.Fatal(err)
	}
	bytes := 2.0 * 512 * 1024 * BytesPerElement // s·b·h bf16 elements
	send := pipeline.Act(pipeline.SendF, 3, 0)
	if got, want := g.Transfer(send, 3, 4), 10e-6+bytes/20e9; !near(got, want) {
		t.Errorf("rank 3 to 4: %g s, want the inter-node %g", got, want)
	}
	if got, want := g.Transfer(pipeline.Act(pipeline.SendF, 2, 0), 2, 3), 2e-6+bytes/200e9; !near(got, want) {
		t.Errorf("rank 2 to 3: %g s, want the intra-node %g", got, want)
	}
	if got, want := g.Stage(0).TF, 2*2*512*(12*1024*1024.0)+4*512*512*2*1024.0; !near(got, want/(100e12*0.4)) {
		t.Errorf("stage 0 forward %g s, want %g FLOPs at 40 TFLOP/s", got, want)
	}
	grads := g.Params(1) * GradientBytesPerParam
	if got, want := g.AllReduce(1, []int{1, 6}), RingAllReduce(grads, 2, h.InterNode); !near(got, want) {
		t.Errorf("all-reduce over ranks 1 and 6: %g, want %g over the inter-node link", got, want)
	}
	if got, want := g.AllReduce(1, []int{1, 2}), RingAllReduce(grads, 2, h.Link); !near(got, want) {
		t.Errorf("all-reduce over ranks 1 and 2: %g, want %g over the node's link", got, want)
	}
}

// Bad hardware files: one line naming the file, the line and the key.
func TestHardwareErrors(t *testing.T) {
	gpu := "gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\n"
	link := "link: {name: l, latency: 1e-6, bandwidth: 1e10}\n"
	tests := []struct{ file, want string }{
		{link, "hw.yaml:1: gpu: missing"},
		{gpu, "hw.yaml:1: link: missing"},
		{"gpu: {name: g, memory_bytes: 4e10}\n" + link, "hw.yaml:1: gpu.peak_flops: missing"},
		{"gpu: {name: g, peak_flops: -1e14, memory_bytes: 4e10}\n" + link, "hw.yaml:1: gpu.peak_flops: must be positive, got -1e+14"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, efficiency: 1.5}\n" + link, "hw.yaml:1: gpu.efficiency: 1.5 is above 1"},
		{"gpu: {peak_flops: 1e14, memory_bytes: 4e10}\n" + link, "hw.yaml:1: gpu.name: missing"},
		{gpu + "link: {name: l, latency: -1e-6, bandwidth: 1e10}\n", "hw.yaml:2: link.latency: must not be negative, got -1e-06"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: 0}\n", "hw.yaml:2: link.bandwidth: must be positive, got 0"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: fast}\n", `hw.yaml:2: link.bandwidth: want a decimal number, got "fast"`},
		{gpu + "link:\n  name: l\n  latency: 1e-6\n  bandwith: 1e10\n", "hw.yaml:5: link.bandwith: unknown key"},
		{gpu + link + "ranks_per_node: 4\n", "hw.yaml:1: inter_node_link: missing"},
		{gpu + link + "inter_node_link: {name: x, latency: 1e-6, bandwidth: 1e9}\n", "hw.yaml:1: ranks_per_node: missing"},
		{gpu + link + "ranks_per_node: 2.5\ninter_node_link: {name: x, latency: 1e-6, bandwidth: 1e9}\n", "hw.yaml:3: ranks_per_node: want a whole number"},
		{gpu + link + "ranks_per_node: 4\ninter_node_link: {name: x, latency: 1e-6}\n", "hw.yaml:4: inter_node_link.bandwidth: missing"},
		{gpu + link + "nodes: 2\n", "hw.yaml:3: nodes: unknown key"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, elementwise_passes: 2}\n" + link, "hw.yaml:1: gpu.elementwise_passes: the passes run at the memory bandwidth"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, memory_bandwidth: 2e12, elementwise_passes: -2}\n" + link, "hw.yaml:1: gpu.elementwise_passes: must not be negative"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, memory_bandwidth: 2e16}\n" + link, "hw.yaml:1: gpu.memory_bandwidth:"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: 1e10, p2p_bandwidth: 2e10}\n", "hw.yaml:2: link.p2p_bandwidth: 2e+10 is above the link's bandwidth 1e+10"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: 1e10, collective_bandwidth: 2e10}\n", "hw.yaml:2: link.collective_bandwidth: 2e+10 is above the link's bandwidth 1e+10"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: 1e10, p2p_bandwidth: 0}\n", "hw.yaml:2: link.p2p_bandwidth: must be positive, got 0"},
		{gpu + "link: {name: l, latency: 1e-6, bandwidth: 1e10, p2p_overhead: -1e-4}\n", "hw.yaml:2: link.p2p_overhead: must not be negative"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, action_gap: -1e-3}\n" + link, "hw.yaml:1: gpu.action_gap: must not be negative"},
		{"gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, action_gap: 2}\n" + link, "hw.yaml:1: gpu.action_gap: 2 s is above 1 s, impossible for the runtime's gap between two actions"},
		{"", "hw.yaml: empty hardware file"},
	}
	for _, tt := range tests {
		_, err := ParseHardware([]byte(tt.file), "hw.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tt.file, err, tt.want)
		}
	}
}

// A hardware file's memory bandwidth and element-wise passes reach the GPU
// model (Hardware.Apply).
func TestHardwareElementwisePasses(t *testing.T) {
	h, err := ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, memory_bandwidth: 2e12, elementwise_passes: 2.5}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e10}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := h.Apply(GPUConfig{})
	if c.GPU.MemoryBandwidth != 2e12 || c.Parallel.ElementwisePasses != 2.5 {
		t.Errorf("applied memory bandwidth %g, passes %g; want 2e12 and 2.5", c.GPU.MemoryBandwidth, c.Parallel.ElementwisePasses)
	}
}

// A hardware file's point-to-point figures reach the GPU model's transfers:
// one 1e8-byte message between two ranks costs latency + overhead + bytes
// over the point-to-point bandwidth (Link.PointToPoint's closed form).
func TestHardwarePointToPoint(t *testing.T) {
	h, err := ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e11, p2p_bandwidth: 5e10, p2p_overhead: 2e-4}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if h.Link.P2PBandwidth != 5e10 || h.Link.P2POverhead != 2e-4 {
		t.Fatalf("read %+v", h.Link)
	}
	if got, want := h.Link.PointToPoint(1e8), 1e-6+2e-4+1e8/5e10; got != want {
		t.Errorf("PointToPoint(1e8) = %g s, want %g", got, want)
	}
	// 0.2 read as seconds is 200 ms, beyond the plausible 10 ms: a warning
	// naming the key and the µs it most likely meant.
	h, err = ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e11, p2p_overhead: 0.2}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "hw.yaml:2: link.p2p_overhead: 200 ms is above 10 ms, implausible for a transfer's point-to-point overhead") {
		t.Errorf("warnings %q", h.Warnings)
	}
}

// A hardware file's collective bandwidth reaches the ring collectives: an
// all-reduce of 1e9 bytes among 4 ranks takes 2·3/4·1e9/BW + 6α at it
// (RingAllReduce's closed form), and the presets print it back.
func TestHardwareCollectiveBandwidth(t *testing.T) {
	h, err := ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e11, collective_bandwidth: 8e10}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RingAllReduce(1e9, 4, h.Link), 2*3.0/4*1e9/8e10+6e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("all-reduce %g s, want %g", got, want)
	}
	var b strings.Builder
	if err := WriteHardwarePresets(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "collective_bandwidth: 2.3e+11") {
		t.Errorf("the presets do not print nvlink3's collective bandwidth:\n%s", b.String())
	}
}

// A hardware file's action gap reaches the GPU model (Hardware.Apply), and
// 1.5 read as seconds, beyond the plausible 10 ms, is a warning naming the
// key and the milliseconds it most likely meant.
func TestHardwareActionGap(t *testing.T) {
	h, err := ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, action_gap: 1e-3}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e10}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Apply(GPUConfig{}); c.ActionGap != 1e-3 || len(h.Warnings) != 0 {
		t.Errorf("applied action gap %g s, warnings %q; want 1e-3 and none", c.ActionGap, h.Warnings)
	}
	h, err = ParseHardware([]byte("gpu: {name: g, peak_flops: 1e14, memory_bytes: 4e10, action_gap: 0.5}\n"+
		"link: {name: l, latency: 1e-6, bandwidth: 1e10}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "hw.yaml:1: gpu.action_gap: 500 ms is above 10 ms, implausible for the runtime's gap between two actions") {
		t.Errorf("warnings %q", h.Warnings)
	}
}
