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
	expertParallel         int
	// The cluster: tensor- and data-parallel degrees, nodes, and
	// recomputation (cost.Parallelism).
	tp, dp, gpusPerNode int
	nodeLink, recompute string
	sequenceParallel    bool
	distOptimizer       bool
	overlapGradReduce   bool
	fs                  *flag.FlagSet
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
	fs.IntVar(&p.expertParallel, "expert-parallel", 0, "spread the routed experts of MoE layers over this many GPUs and price their all-to-alls (on --gpus-per-node and --node-link when given, else nodes of 8 on nvlink, ib-ndr between; overlapped within OVERLAP_F_B pairs); 0 is none"+note)
	fs.Float64Var(&p.efficiency, "efficiency", 0, fmt.Sprintf("achieved share of the GPU's peak in (0, 1]; 0 takes the hardware file's, or %g", cost.DefaultEfficiency)+note)
	fs.IntVar(&p.tp, "tp", experiments.DefaultGPU.TP, "tensor-parallel GPUs T per stage, inside one node: their all-reduces take --node-link (--link without nodes)"+note)
	fs.IntVar(&p.dp, "dp", experiments.DefaultGPU.DP, "data-parallel replicas D of the pipeline"+note)
	fs.IntVar(&p.gpusPerNode, "gpus-per-node", 0, "GPUs G a node; --link then joins nodes and --node-link the GPUs of a node"+note)
	fs.StringVar(&p.nodeLink, "node-link", "", "link preset inside a node, with --gpus-per-node"+note)
	fs.StringVar(&p.recompute, "recompute", experiments.DefaultGPU.Recompute, "activation recomputation: none, selective or full"+note)
	fs.BoolVar(&p.sequenceParallel, "sequence-parallel", false, "split layer norms and dropouts over the T GPUs too (Megatron-LM's sequence parallelism)"+note)
	fs.BoolVar(&p.distOptimizer, "distributed-optimizer", false, "split the Adam state over the --dp replicas: reduce-scatter the gradients, all-gather the weights"+note)
	fs.BoolVar(&p.overlapGradReduce, "overlap-grad-reduce", false, "hide the gradient reduction behind each stage's last backward"+note)
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
	if err := p.checkCluster(); err != nil {
		return err
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

// checkCluster names the cluster flag that is wrong.
func (p *presetFlags) checkCluster() error {
	switch {
	case p.tp < 1 || p.dp < 1:
		return fmt.Errorf("--tp and --dp must be at least 1, got %d and %d", p.tp, p.dp)
	case p.gpusPerNode < 0:
		return fmt.Errorf("--gpus-per-node must not be negative, got %d", p.gpusPerNode)
	case p.sequenceParallel && p.tp < 2:
		return fmt.Errorf("--sequence-parallel splits along the sequence what --tp splits: give --tp above 1")
	case (p.distOptimizer || p.overlapGradReduce) && p.dp < 2:
		return fmt.Errorf("--distributed-optimizer and --overlap-grad-reduce concern the gradients of --dp replicas: give --dp above 1")
	case p.hardware != "" && (p.gpusPerNode != 0 || p.nodeLink != ""):
		return fmt.Errorf("--hardware gives the nodes (ranks_per_node, link, inter_node_link): drop --gpus-per-node and --node-link")
	case (p.gpusPerNode > 0) != (p.nodeLink != ""):
		return fmt.Errorf("--gpus-per-node and --node-link come together: the GPUs of a node and the link that joins them")
	}
	if _, err := cost.ParseRecompute(p.recompute); err != nil {
		return fmt.Errorf("--recompute: %w", err)
	}
	return nil
}

// spec is the flags as a cost spec's GPU keys.
func (p *presetFlags) spec() experiments.CostSpec {
	return experiments.CostSpec{CostModel: "gpu", Preset: p.model, ModelConfig: p.modelConfig, GPU: p.gpu, Link: p.link,
		Hardware: p.hardware, Microbatch: p.microbatchSize, Sequence: p.seqLen, FlashAttention: p.flash, Efficiency: p.efficiency,
		TP: p.tp, DP: p.dp, Recompute: p.recompute, SequenceParallel: p.sequenceParallel,
		DistributedOptimizer: p.distOptimizer, OverlapGradReduce: p.overlapGradReduce,
		GPUsPerNode: p.gpusPerNode, NodeLink: p.nodeLink, ExpertParallel: p.expertParallel}
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
