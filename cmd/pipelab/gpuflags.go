package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/experiments"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// presetFlags choose the GPU timing model's presets and workload: --model
// (or --model-config), --gpu and --link (or --hardware), --microbatch-size
// and --seq-len.
type presetFlags struct {
	model, modelConfig     string
	gpu, link, hardware    string
	microbatchSize, seqLen int
	flash                  bool
	efficiency             float64
	fs                     *flag.FlagSet
	// fromHardware is what check read from --hardware.
	fromHardware cost.Hardware
}

// register declares the flags; modelHelp describes --model, and note ends
// the help of the other four (" (with --model)" where the GPU model is one
// cost model of several).
func (p *presetFlags) register(fs *flag.FlagSet, modelHelp, note string) {
	fs.StringVar(&p.model, "model", "", modelHelp)
	fs.StringVar(&p.modelConfig, "model-config", "", "a HuggingFace config.json to build the model from, instead of --model")
	// The defaults are a spec's (experiments.DefaultGPU), so that a
	// command and a one-run sweep of the same settings price alike.
	fs.StringVar(&p.gpu, "gpu", experiments.DefaultGPU.GPU, "GPU preset"+note)
	fs.StringVar(&p.link, "link", experiments.DefaultGPU.Link, "link preset between ranks"+note)
	fs.StringVar(&p.hardware, "hardware", "", "a hardware file (YAML: gpu, link, ranks_per_node, inter_node_link) instead of --gpu and --link"+note)
	markFiles(fs, readsFile, nil, "model-config", "hardware")
	fs.IntVar(&p.microbatchSize, "microbatch-size", experiments.DefaultGPU.Microbatch, "samples per microbatch b"+note)
	fs.IntVar(&p.seqLen, "seq-len", experiments.DefaultGPU.Sequence, "sequence length s in tokens"+note)
	fs.BoolVar(&p.flash, "flash-attention", false, "price attention as FlashAttention runs it: no stored scores, recomputed in the backward"+note)
	fs.Float64Var(&p.efficiency, "efficiency", 0, fmt.Sprintf("achieved share of the GPU's peak in (0, 1]; 0 takes the hardware file's, or %g", cost.DefaultEfficiency)+note)
	p.fs = fs
}

// given reports whether a model is named, by preset or by config file.
func (p *presetFlags) given() bool { return p.model != "" || p.modelConfig != "" }

// modelName is the preset's name or the config file's path.
func (p *presetFlags) modelName() string {
	if p.modelConfig != "" {
		return p.modelConfig
	}
	return p.model
}

func (p *presetFlags) check() error {
	if p.model != "" && p.modelConfig != "" {
		return fmt.Errorf("--model and --model-config exclude each other")
	}
	if p.modelConfig != "" {
		var err error
		if _, err = cost.ReadHFConfig(p.modelConfig); err != nil {
			return fmt.Errorf("--model-config: %w", err)
		}
	}
	if p.hardware != "" {
		if set := setFlags(p.fs); set["gpu"] || set["link"] {
			return fmt.Errorf("--hardware gives the GPU and the links: drop --gpu and --link")
		}
		var err error
		if p.fromHardware, err = cost.ReadHardware(p.hardware); err != nil {
			return fmt.Errorf("--hardware: %w", err)
		}
		for _, w := range p.fromHardware.Warnings {
			fmt.Fprintf(p.fs.Output(), "pipelab %s: warning: --hardware: %s\n", p.fs.Name(), w)
		}
	}
	if p.microbatchSize < 1 || p.seqLen < 1 {
		return fmt.Errorf("--microbatch-size and --seq-len must be positive, got %d and %d", p.microbatchSize, p.seqLen)
	}
	if p.efficiency < 0 || p.efficiency > 1 {
		return fmt.Errorf("--efficiency must be in (0, 1], got %g", p.efficiency)
	}
	if p.given() {
		_, err := p.config() // an unknown preset is a flag error
		return err
	}
	return nil
}

// config resolves the presets and files with the one resolution of
// specs and flags (experiments.CostSpec.GPUConfig), naming the flag of a
// value that is unusable.
func (p *presetFlags) config() (cost.GPUConfig, error) {
	cfg, err := p.spec().GPUConfig()
	var bad *experiments.CostKeyError
	if errors.As(err, &bad) {
		return cost.GPUConfig{}, badInput{fmt.Errorf("--%s: %w", strings.ReplaceAll(bad.Key, "_", "-"), bad.Err)}
	}
	return cfg, err
}

// spec is the flags as a cost spec's GPU keys.
func (p *presetFlags) spec() experiments.CostSpec {
	return experiments.CostSpec{CostModel: "gpu", Preset: p.model, ModelConfig: p.modelConfig, GPU: p.gpu, Link: p.link,
		Hardware: p.hardware, Microbatch: p.microbatchSize, Sequence: p.seqLen, FlashAttention: p.flash, Efficiency: p.efficiency}
}

// hardwareName says which GPU and links the model runs on: the presets'
// names, or the hardware file's GPU and links.
func hardwareName(cfg cost.GPUConfig) string {
	s := fmt.Sprintf("%s over %s", cfg.GPU.Name, cfg.Link.Name)
	if cfg.RanksPerNode > 0 {
		s += fmt.Sprintf(" within nodes of %d ranks, %s between them", cfg.RanksPerNode, cfg.InterNode.Name)
	}
	return s
}

// fitsOneMicrobatch refuses, naming the flags, a workload of which a
// single microbatch's activations on one stage exceed the GPU's memory
// (experiments.OverMemory, the check a spec makes too).
func (p *presetFlags) fitsOneMicrobatch(cfg cost.GPUConfig, m cost.Memory, stages int) error {
	if s, need, over := experiments.OverMemory(cfg, m, stages); over {
		return badInput{fmt.Errorf("--microbatch-size %d --seq-len %d: %s; lower --microbatch-size or --seq-len",
			p.microbatchSize, p.seqLen, experiments.OverMemoryText(cfg, s, need))}
	}
	return nil
}
