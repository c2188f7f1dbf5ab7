package request

import (
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"strings"

	"github.com/pipelab/pipelab/experiments/costspec"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// PresetFlags choose the GPU timing model's presets and workload: --model
// (or --model-config), --gpu and --link (or --hardware), --microbatch-size
// and --seq-len.
type PresetFlags struct {
	Model, ModelConfig     string
	GPU, Link, Hardware    string
	MicrobatchSize, SeqLen int
	Flash                  bool
	Efficiency             float64
	ExpertParallel         int
	// The cluster: tensor- and data-parallel degrees, nodes, and
	// recomputation (cost.Parallelism).
	TP, DP, GPUsPerNode int
	NodeLink, Recompute string
	SequenceParallel    bool
	DistOptimizer       bool
	OverlapGradReduce   bool
	FS                  *flag.FlagSet
	// FromHardware is what check read from --hardware.
	FromHardware cost.Hardware
}

// register declares the flags; modelHelp describes --model, and note ends
// the help of the other four (" (with --model)" where the GPU model is one
// cost model of several).
func (p *PresetFlags) Register(fs *flag.FlagSet, modelHelp, note string) {
	fs.StringVar(&p.Model, "model", "", modelHelp)
	fs.StringVar(&p.ModelConfig, "model-config", "", "a HuggingFace config.json to build the model from, instead of --model")
	// The defaults are a spec's (costspec.Default), so that a
	// command and a one-run sweep of the same settings price alike.
	fs.StringVar(&p.GPU, "gpu", costspec.Default.GPU, "GPU preset"+note)
	fs.StringVar(&p.Link, "link", costspec.Default.Link, "link preset between ranks"+note)
	fs.StringVar(&p.Hardware, "hardware", "", "a hardware file (YAML: gpu, link, ranks_per_node, inter_node_link) instead of --gpu and --link"+note)
	MarkFiles(fs, ReadsFile, nil, "model-config", "hardware")
	fs.IntVar(&p.MicrobatchSize, "microbatch-size", costspec.Default.Microbatch, "samples per microbatch b"+note)
	fs.IntVar(&p.SeqLen, "seq-len", costspec.Default.Sequence, "sequence length s in tokens"+note)
	fs.BoolVar(&p.Flash, "flash-attention", false, "price attention as FlashAttention runs it: no stored scores, recomputed in the backward"+note)
	fs.IntVar(&p.ExpertParallel, "expert-parallel", 0, "spread the routed experts of MoE layers over this many GPUs and price their all-to-alls (on --gpus-per-node and --node-link when given, else nodes of 8 on nvlink, ib-ndr between; overlapped within OVERLAP_F_B pairs); 0 is none"+note)
	fs.Float64Var(&p.Efficiency, "efficiency", 0, fmt.Sprintf("achieved share of the GPU's peak in (0, 1]; 0 takes the hardware file's, or %g", cost.DefaultEfficiency)+note)
	fs.IntVar(&p.TP, "tp", costspec.Default.TP, "tensor-parallel GPUs T per stage, inside one node: their all-reduces take --node-link (--link without nodes)"+note)
	fs.IntVar(&p.DP, "dp", costspec.Default.DP, "data-parallel replicas D of the pipeline"+note)
	fs.IntVar(&p.GPUsPerNode, "gpus-per-node", 0, "GPUs G a node; --link then joins nodes and --node-link the GPUs of a node"+note)
	fs.StringVar(&p.NodeLink, "node-link", "", "link preset inside a node, with --gpus-per-node"+note)
	fs.StringVar(&p.Recompute, "recompute", costspec.Default.Recompute, "activation recomputation: none, selective or full"+note)
	fs.BoolVar(&p.SequenceParallel, "sequence-parallel", false, "split layer norms and dropouts over the T GPUs too (Megatron-LM's sequence parallelism)"+note)
	fs.BoolVar(&p.DistOptimizer, "distributed-optimizer", false, "split the Adam state over the --dp replicas: reduce-scatter the gradients, all-gather the weights"+note)
	fs.BoolVar(&p.OverlapGradReduce, "overlap-grad-reduce", false, "hide the gradient reduction behind each stage's last backward"+note)
	p.FS = fs
}

// given reports whether a model is named, by preset or by config file.
func (p *PresetFlags) Given() bool { return p.Model != "" || p.ModelConfig != "" }

// modelName is the preset's name or the config file's path.
func (p *PresetFlags) ModelName() string {
	if p.ModelConfig != "" {
		return p.ModelConfig
	}
	return p.Model
}

func (p *PresetFlags) Check() error {
	if p.Model != "" && p.ModelConfig != "" {
		return fmt.Errorf("--model and --model-config exclude each other")
	}
	if p.ModelConfig != "" {
		var err error
		if _, err = cost.ReadHFConfig(p.ModelConfig); err != nil {
			return fmt.Errorf("--model-config: %w", err)
		}
	}
	if p.Hardware != "" {
		if set := SetFlags(p.FS); set["gpu"] || set["link"] {
			return fmt.Errorf("--hardware gives the GPU and the links: drop --gpu and --link")
		}
		var err error
		if p.FromHardware, err = cost.ReadHardware(p.Hardware); err != nil {
			return fmt.Errorf("--hardware: %w", err)
		}
		for _, w := range p.FromHardware.Warnings {
			fmt.Fprintf(p.FS.Output(), "pipelab %s: warning: --hardware: %s\n", p.FS.Name(), w)
		}
	}
	if p.MicrobatchSize < 1 || p.SeqLen < 1 {
		return fmt.Errorf("--microbatch-size and --seq-len must be positive, got %d and %d", p.MicrobatchSize, p.SeqLen)
	}
	if p.Efficiency < 0 || p.Efficiency > 1 {
		return fmt.Errorf("--efficiency must be in (0, 1], got %g", p.Efficiency)
	}
	if err := p.CheckCluster(); err != nil {
		return err
	}
	if p.Given() {
		_, err := p.Config() // an unknown preset is a flag error
		return err
	}
	return nil
}

// config resolves the presets and files with the one resolution of
// specs and flags (costspec.GPU.GPUConfig), naming the flag of a
// value that is unusable.
func (p *PresetFlags) Config() (cost.GPUConfig, error) {
	cfg, err := p.Spec().Config()
	var bad *costspec.KeyError
	if errors.As(err, &bad) {
		return cost.GPUConfig{}, fault.Bad(fmt.Errorf("--%s: %w", strings.ReplaceAll(bad.Key, "_", "-"), bad.Err))
	}
	return cfg, err
}

// checkCluster names the cluster flag that is wrong.
func (p *PresetFlags) CheckCluster() error {
	switch {
	case p.TP < 1 || p.DP < 1:
		return fmt.Errorf("--tp and --dp must be at least 1, got %d and %d", p.TP, p.DP)
	case p.GPUsPerNode < 0:
		return fmt.Errorf("--gpus-per-node must not be negative, got %d", p.GPUsPerNode)
	case p.SequenceParallel && p.TP < 2:
		return fmt.Errorf("--sequence-parallel splits along the sequence what --tp splits: give --tp above 1")
	case (p.DistOptimizer || p.OverlapGradReduce) && p.DP < 2:
		return fmt.Errorf("--distributed-optimizer and --overlap-grad-reduce concern the gradients of --dp replicas: give --dp above 1")
	case p.Hardware != "" && (p.GPUsPerNode != 0 || p.NodeLink != ""):
		return fmt.Errorf("--hardware gives the nodes (ranks_per_node, link, inter_node_link): drop --gpus-per-node and --node-link")
	case (p.GPUsPerNode > 0) != (p.NodeLink != ""):
		return fmt.Errorf("--gpus-per-node and --node-link come together: the GPUs of a node and the link that joins them")
	}
	if _, err := cost.ParseRecompute(p.Recompute); err != nil {
		return fmt.Errorf("--recompute: %w", err)
	}
	return nil
}

// spec is the flags as a cost spec's GPU keys.
func (p *PresetFlags) Spec() costspec.GPU {
	return costspec.GPU{Preset: p.Model, ModelConfig: p.ModelConfig, GPU: p.GPU, Link: p.Link,
		Hardware: p.Hardware, Microbatch: p.MicrobatchSize, Sequence: p.SeqLen, FlashAttention: p.Flash, Efficiency: p.Efficiency,
		TP: p.TP, DP: p.DP, Recompute: p.Recompute, SequenceParallel: p.SequenceParallel,
		DistributedOptimizer: p.DistOptimizer, OverlapGradReduce: p.OverlapGradReduce,
		GPUsPerNode: p.GPUsPerNode, NodeLink: p.NodeLink, ExpertParallel: p.ExpertParallel}
}

// hardwareName says which GPU and links the model runs on (the presets'
// names, or the hardware file's GPU and links; a node's ranks are its
// GPUs), and the parallelism around each stage.
func hardwareName(cfg cost.GPUConfig) string {
	s := fmt.Sprintf("%s over %s", cfg.GPU.Name, cfg.Link.Name)
	p := cfg.Parallel
	if unit := "ranks"; cfg.RanksPerNode > 0 {
		if p.Tensor > 1 || p.Data > 1 {
			unit = "GPUs"
		}
		s += fmt.Sprintf(" within nodes of %d %s, %s between them", cfg.RanksPerNode, unit, cfg.InterNode.Name)
	}
	if p.Tensor > 1 || p.Data > 1 {
		s += fmt.Sprintf(", each rank %d GPUs (tensor parallel), %d replicas (data parallel)", max(p.Tensor, 1), max(p.Data, 1))
	}
	if p.SequenceParallel {
		s += ", sequence parallel"
	}
	if p.Recompute != cost.RecomputeNone {
		s += fmt.Sprintf(", %s recomputation", p.Recompute)
	}
	if p.DistributedOptimizer {
		s += ", distributed optimizer"
	}
	if p.OverlapGradReduce {
		s += ", gradient reduction overlapped"
	}
	if cfg.ActionGap > 0 {
		s += fmt.Sprintf(", %.4g ms between two actions of a rank", 1e3*cfg.ActionGap)
	}
	return s
}

// fitsOneMicrobatch refuses, naming the flags, a workload of which a
// single microbatch's activations on one stage exceed the GPU's memory
// (costspec.OverMemory, the check a spec makes too).
func (p *PresetFlags) FitsOneMicrobatch(cfg cost.GPUConfig, m cost.Memory, stages int) error {
	if s, need, over := costspec.OverMemory(cfg, m, stages); over {
		return fault.Bad(fmt.Errorf("--microbatch-size %d --seq-len %d: %s; lower --microbatch-size or --seq-len",
			p.MicrobatchSize, p.SeqLen, costspec.OverMemoryText(cfg, s, need)))
	}
	return nil
}
