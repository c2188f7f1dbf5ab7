package cost

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// oneLine fails t unless err is a short one-line error containing every
// want.
func oneLine(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted, want an error with %q", what, want)
		return
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 400 || strings.HasPrefix(msg, "cost:") {
		t.Errorf("%s: error of %d bytes, want one short line not starting with cost: %.200q", what, len(msg), msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: error %.300q, want it to contain %q", what, msg, w)
		}
	}
}

// Every number of a costs file is a finite decimal within CheckTime's
// range, refused where it is read with the file, the line and the column.
func TestCostsCSVNumbers(t *testing.T) {
	head := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n"
	for cell, want := range map[string]string{
		"NaN":    `fwd_ms: want a non-negative decimal number of milliseconds, got "NaN"`,
		"Inf":    `got "Inf"`,
		"-Inf":   `got "-Inf"`,
		"1e400":  `got "1e400"`,
		"0x1p3":  `got "0x1p3"`,
		"1_000":  `got "1_000"`,
		"1e308":  "over one day",
		"1e11":   "over one day", // 10^8 s
		"1e-300": "below 1 ns",
		"-1":     "must not be negative",
	} {
		file := head + "0," + cell + ",1,1,0.5\n1,1,1,1,\n"
		_, err := ParseCostsCSV([]byte(file), "c.csv")
		oneLine(t, cell, err, "c.csv:2: fwd_ms: ", want)
	}
	_, err := ParseCostsCSV([]byte(head+"0,1,1,1,NaN\n1,1,1,1,\n"), "c.csv")
	oneLine(t, "comm NaN", err, "c.csv:2: comm_ms:", `"NaN"`)
	// The bounds themselves are accepted: one day, 1 ns, and 0 for W.
	m, err := ParseCostsCSV([]byte(head+"0,86400000,1e-6,0,0.5\n1,1,1,1,\n"), "c.csv")
	if err != nil || m.Stages[0].TF != MaxTime || math.Abs(m.Stages[0].TB-1e-9) > 1e-24 {
		t.Errorf("the bounds: %+v, %v", m, err)
	}
}

// A megabyte of junk in a cell gives a short line; a NUL shows escaped.
func TestCostsCSVQuotesShort(t *testing.T) {
	head := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n"
	junk := strings.Repeat("j", 1<<20)
	_, err := ParseCostsCSV([]byte(head+"0,"+junk+",1,1,0.5\n1,1,1,1,\n"), "c.csv")
	oneLine(t, "junk cell", err, `"jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj"... (1 MiB)`)
	_, err = ParseCostsCSV([]byte(head+"0\x00,1,1,1,0.5\n"), "c.csv")
	oneLine(t, "NUL in the stage", err, `stage: "0\x00"`)
	_, err = ParseCostsCSV([]byte("stage,fwd\x1b[31m,bwd_ms,wgrad_ms,comm_ms\n"), "c.csv")
	oneLine(t, "escape in the header", err, `header "fwd\x1b[31m"`)
}

// Readers refuse files over their cap before reading them whole, and
// stop reading an endless device at the cap.
func TestReaderCaps(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(inputfile.CostsCSV + 1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadCostsCSV(big)
	if !errors.Is(err, inputfile.ErrTooLarge) {
		t.Errorf("a costs file over the cap: %v", err)
	}
	oneLine(t, "big costs file", err, big, "costs file of 16.0 MiB", "16 MiB")
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err = ReadCostsCSV("/dev/zero")
	oneLine(t, "/dev/zero as costs", err, "/dev/zero: costs file goes on past the 16 MiB")
	_, err = ReadHardware("/dev/zero")
	oneLine(t, "/dev/zero as hardware", err, "/dev/zero: hardware file goes on past the 1 MiB")
	_, err = ReadHFConfig("/dev/zero")
	oneLine(t, "/dev/zero as a model config", err, "/dev/zero: model config goes on past the 16 MiB")
	_, err = ReadProfile("/dev/zero")
	oneLine(t, "/dev/zero as a profile", err, "/dev/zero: not a Chrome trace")
}

// A hardware file's numbers: a physically impossible one is an error
// naming the file, the line, the key and the unit most likely meant; an
// implausible one is a warning; hexadecimal and underscores are refused.
func TestHardwarePlausibility(t *testing.T) {
	gpu := "gpu: {name: g, peak_flops: 312e12, memory_bytes: 80e9}\n"
	link := "link: {name: l, latency: 3e-6, bandwidth: 50e9}\n"
	for _, tt := range []struct{ file, want string }{
		{gpu + "link: {name: l, latency: 3e-6, bandwidth: 50}\n", "hw.yaml:2: link.bandwidth: 50 B/s is below 1 MB/s, impossible for a GPU link's bandwidth; the file takes bytes per second: 50 GB/s is 50e9"},
		{gpu + "link: {name: l, latency: 3e-6, bandwidth: 1e-300}\n", "link.bandwidth: 1e-300 B/s is below 1 MB/s"},
		{gpu + "link: {name: l, latency: 3e-6, bandwidth: 1e15}\n", "link.bandwidth: 1 PB/s is above 100 TB/s"},
		{gpu + "link: {name: l, latency: 3, bandwidth: 50e9}\n", "link.latency: 3 s is above 1 s, impossible for a GPU link's latency; the file takes seconds: 3 µs is 3e-6"},
		{gpu + "link: {name: l, latency: 1e300, bandwidth: 50e9}\n", "link.latency: 1e+300 s is above 1 s"},
		{"gpu: {name: g, peak_flops: 312, memory_bytes: 80e9}\n" + link, "hw.yaml:1: gpu.peak_flops: 312 FLOP/s is below 1 GFLOP/s, impossible for a GPU's dense peak; the file takes FLOP per second: 312 TFLOP/s is 312e12"},
		{"gpu: {name: g, peak_flops: 312e12, memory_bytes: 80}\n" + link, "gpu.memory_bytes: 80 B is below 1 MB, impossible for a GPU's memory; the file takes bytes: 80 GB is 80e9"},
		{"gpu: {name: g, peak_flops: 0x1p50, memory_bytes: 80e9}\n" + link, `gpu.peak_flops: want a decimal number, got "0x1p50"`},
		{"gpu: {name: g, peak_flops: 312_000e9, memory_bytes: 80e9}\n" + link, `got "312_000e9"`},
		{"gpu: {name: g, peak_flops: .inf, memory_bytes: 80e9}\n" + link, `got ".inf"`},
		{"gpu: {name: \"g\\0pu\", peak_flops: 312e12, memory_bytes: 80e9}\n" + link, `gpu.name: want a name of at most 100 characters without control characters, got "g\x00pu"`},
		{gpu + link + "ranks_per_node: 2\ninter_node_link: {name: x, latency: 1e-5, bandwidth: 25}\n", "hw.yaml:4: inter_node_link.bandwidth: 25 B/s is below 1 MB/s"},
	} {
		_, err := ParseHardware([]byte(tt.file), "hw.yaml")
		oneLine(t, tt.file, err, tt.want)
	}
	h, err := ParseHardware([]byte("gpu: {name: g, peak_flops: 5e11, memory_bytes: 4e12, efficiency: 0.01}\nlink: {name: l, latency: 0.01, bandwidth: 5e7}\n"), "hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"hw.yaml:1: gpu.peak_flops: 500 GFLOP/s is below 1 TFLOP/s, implausible for a GPU's dense peak",
		"hw.yaml:1: gpu.memory_bytes: 4 TB is above 2 TB, implausible for a GPU's memory",
		"hw.yaml:1: gpu.efficiency: 0.01 is below 0.05, implausible",
		"hw.yaml:2: link.latency: 10 ms is above 1 ms, implausible for a GPU link's latency",
		"hw.yaml:2: link.bandwidth: 50 MB/s is below 100 MB/s, implausible for a GPU link's bandwidth",
	}
	if len(h.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", h.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(h.Warnings[i], w) {
			t.Errorf("warning %d: %q, want it to start %q", i, h.Warnings[i], w)
		}
	}
	// Every preset is plausible: no warning when read back.
	var b strings.Builder
	if err := WriteHardwarePresets(&b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ParseHardwarePresets([]byte(b.String()), "presets.yaml"); err != nil {
		t.Errorf("the presets: %v", err)
	}
	for _, g := range gpus {
		for _, q := range []struct {
			q quantity
			x float64
		}{{peakFLOPS, g.PeakFLOPS}, {gpuMemory, g.MemoryBytes}} {
			if bad, warn := q.q.check(q.x); bad+warn != "" {
				t.Errorf("preset %s: %s%s", g.Name, bad, warn)
			}
		}
	}
	for _, l := range links {
		for _, q := range []struct {
			q quantity
			x float64
		}{{bandwidth, l.Bandwidth}, {latency, l.Latency}} {
			if bad, warn := q.q.check(q.x); bad+warn != "" {
				t.Errorf("preset %s: %s%s", l.Name, bad, warn)
			}
		}
	}
}

// Each size a model config gives is bounded by its field's range.
func TestHFConfigRanges(t *testing.T) {
	llama := func(field string, v any) []byte {
		f := map[string]any{"model_type": `"llama"`, "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
			"intermediate_size": 11008, "vocab_size": 32000}
		f[field] = v
		var b strings.Builder
		b.WriteString("{")
		first := true
		for k, x := range f {
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, "%q: %v", k, x)
		}
		return []byte(b.String() + "}")
	}
	for _, tt := range []struct {
		field string
		v     any
		want  string
	}{
		{"hidden_size", 1 << 20, `field "hidden_size": want an integer from 1 to 131072, got 1048576`},
		{"vocab_size", 1e9, `field "vocab_size": want an integer from 1 to 4194304`},
		{"num_hidden_layers", 100000, `field "num_hidden_layers": want an integer from 1 to 4096`},
		{"intermediate_size", "12345678901234567890", `field "intermediate_size": want an integer from 1 to 1048576, got 12345678901234567890`},
		{"num_attention_heads", 1e300, `field "num_attention_heads"`},
		{"vocab_size", 32000.5, `field "vocab_size"`},
	} {
		_, err := ParseHFConfig(llama(tt.field, tt.v), "m.json")
		oneLine(t, fmt.Sprint(tt.field, tt.v), err, "m.json: ", tt.want)
	}
	if _, err := ParseHFConfig(llama("vocab_size", 1<<22), "m.json"); err != nil {
		t.Errorf("the largest vocabulary: %v", err)
	}
}

// A profile's indices and durations are checked where they are read.
func TestProfileRanges(t *testing.T) {
	read := func(events string) error {
		path := filepath.Join(t.TempDir(), "t.json")
		if err := os.WriteFile(path, []byte(events), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadProfile(path)
		return err
	}
	oneLine(t, "20-digit microbatch", read(`[{"ph":"X","name":"PP:0F12345678901234567890","dur":1}]`),
		`t.json: traceEvents[0] (PP:0F12345678901234567890): microbatch: "12345678901234567890" is out of range`)
	oneLine(t, "huge stage", read(`[{"ph":"X","name":"PP:70000F0","dur":1}]`), "stage: \"70000\" is out of range")
	oneLine(t, "a duration of 10^20 µs", read(`[{"ph":"X","name":"PP:0F0","dur":1e20}]`), "traceEvents[0] (PP:0F0): dur: ", "over one day")
	oneLine(t, "a duration of 1e-300 µs", read(`[{"ph":"X","name":"PP:0F0","dur":1e-300}]`), "below 1 ns")
	long := `[{"ph":"X","name":"` + strings.Repeat("n", 2<<20) + `","dur":1}]`
	oneLine(t, "one event of 2 MB", read(long), "trace event goes on past the 1 MiB")
}

// Explicit costs are bounded so that a makespan stays a number.
func TestCheckExplicit(t *testing.T) {
	if err := CheckExplicit(1, 2, 0.5, 0.1); err != nil {
		t.Errorf("plain costs: %v", err)
	}
	oneLine(t, "1e308", CheckExplicit(1e308, 1, 0, 0), "--fwd 1e+308 is beyond 1e+12")
	oneLine(t, "NaN comm", CheckExplicit(1, 1, 0, math.NaN()), "--comm NaN")
}
