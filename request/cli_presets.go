package request

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipelab/pipelab/pipeline/cost"
)

const presetsDescription = `
Lists the presets that --gpu, --link and --model accept: GPUs (dense bf16
peak and memory, from the vendors' datasheets), links (latency and bandwidth
per direction) and models (their layers in pipeline order, with the sizes
from the papers and model cards named as sources). docs/presets.md explains
where each number comes from. --format yaml prints the GPUs and links as the
entries a --hardware file takes under gpu: and link: (SI units), to copy
into a file of one's own.`

type PresetGPU struct {
	Name        string  `json:"name"`
	PeakTFLOPS  float64 `json:"peak_bf16_tflops"`
	MemoryBytes float64 `json:"memory_bytes"`
	Source      string  `json:"source"`
}

type PresetLink struct {
	Name          string  `json:"name"`
	LatencyUS     float64 `json:"latency_us"`
	BandwidthGBps float64 `json:"bandwidth_gb_per_s"`
	Source        string  `json:"source"`
}

type PresetBlock struct {
	Kind    string `json:"kind"`
	Count   int    `json:"count"`
	Hidden  int    `json:"hidden"`
	Heads   int    `json:"heads,omitempty"`
	KVHeads int    `json:"kv_heads,omitempty"`
	FFN     int    `json:"ffn,omitempty"`
	Gated   bool   `json:"gated_mlp,omitempty"`
	Experts int    `json:"experts,omitempty"`
	Active  int    `json:"active_experts,omitempty"`
	Shared  int    `json:"shared_experts,omitempty"`
	Vocab   int    `json:"vocab,omitempty"`
	Tokens  int    `json:"tokens,omitempty"`
	In      int    `json:"in,omitempty"`
}

type PresetModel struct {
	Name   string        `json:"name"`
	Layers int           `json:"layers"`
	Params float64       `json:"params"`
	Blocks []PresetBlock `json:"blocks"`
	Source string        `json:"source"`
}

type PresetsReport struct {
	GPUs   []PresetGPU   `json:"gpus"`
	Links  []PresetLink  `json:"links"`
	Models []PresetModel `json:"models"`
}

// DecodePresets decodes presets' command line: it has --format only
// (text, json or yaml, the hardware-file entries), which it returns.
func DecodePresets(args []string, stderr io.Writer) (string, error) {
	fs := NewFlags("presets", "[--format text|json|yaml]", presetsDescription, stderr)
	var output OutputFlag
	output.RegisterFormats(fs, FormatText, FormatJSON, FormatYAML)
	if err := ParseFlags(fs, args); err != nil {
		return "", err
	}
	if err := FirstError(NoArguments(fs.Args()), output.Check()); err != nil {
		return "", FlagProblem(fs, stderr, "presets", err)
	}
	return output.Format, nil
}

// Presets lists the GPU timing model's presets: what "pipelab presets
// --format json" prints.
func Presets() PresetsReport { return listPresets() }

func listPresets() PresetsReport {
	var list PresetsReport
	for _, g := range cost.GPUs() {
		list.GPUs = append(list.GPUs, PresetGPU{g.Name, g.PeakFLOPS / 1e12, g.MemoryBytes, g.Source})
	}
	for _, l := range cost.Links() {
		list.Links = append(list.Links, PresetLink{l.Name, l.Latency * 1e6, l.Bandwidth / 1e9, l.Source})
	}
	for _, m := range cost.Networks() {
		pm := PresetModel{Name: m.Name, Layers: m.LayerCount(), Params: m.Params(), Source: m.Source}
		for _, b := range m.Blocks {
			pm.Blocks = append(pm.Blocks, PresetBlock{Kind: b.Kind.String(), Count: b.Count, Hidden: b.Hidden, Heads: b.Heads,
				KVHeads: b.KVHeads, FFN: b.FFN, Gated: b.Gated, Experts: b.Experts, Active: b.Active, Shared: b.Shared,
				Vocab: b.Vocab, Tokens: b.Tokens, In: b.In})
		}
		list.Models = append(list.Models, pm)
	}
	return list
}

// WriteText prints the presets as "pipelab presets" does.
func (list PresetsReport) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("GPUs (dense bf16 peak, memory):\n")
	for _, g := range list.GPUs {
		fmt.Fprintf(&b, "  %-8s %6.0f TFLOP/s  %4.0f GB    %s\n", g.Name, g.PeakTFLOPS, g.MemoryBytes/1e9, g.Source)
	}
	b.WriteString("\nlinks (latency, bandwidth per direction):\n")
	for _, l := range list.Links {
		fmt.Fprintf(&b, "  %-8s %4.0f µs  %5.0f GB/s    %s\n", l.Name, l.LatencyUS, l.BandwidthGBps, l.Source)
	}
	b.WriteString("\nmodels (layers in pipeline order):\n")
	for _, m := range list.Models {
		fmt.Fprintf(&b, "  %s: %d layers, %.2fB parameters\n", m.Name, m.Layers, m.Params/1e9)
		for _, blk := range m.Blocks {
			fmt.Fprintf(&b, "    %3d × %-16s %s\n", blk.Count, blk.Kind, blockSizes(blk))
		}
		fmt.Fprintf(&b, "    source: %s\n", m.Source)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// blockSizes prints the sizes a block kind has.
func blockSizes(b PresetBlock) string {
	parts := []string{fmt.Sprintf("hidden %d", b.Hidden)}
	add := func(format string, v int) {
		if v != 0 {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add("heads %d", b.Heads)
	add("kv heads %d", b.KVHeads)
	if b.FFN != 0 {
		mlp := "ffn %d"
		if b.Gated {
			mlp = "ffn %d (gated)"
		}
		add(mlp, b.FFN)
	}
	if b.Experts != 0 {
		parts = append(parts, fmt.Sprintf("experts %d, top %d, shared %d", b.Experts, b.Active, b.Shared))
	}
	add("vocab %d", b.Vocab)
	add("tokens %d", b.Tokens)
	add("input width %d", b.In)
	return strings.Join(parts, ", ")
}
