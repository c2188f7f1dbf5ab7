package costspec

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// GPU is the GPU timing model's keys of a cost spec (the command line's
// flags of the same names): the model preset or its HuggingFace config,
// the GPU and link presets or a hardware file, the microbatch's size, and
// the cluster around each stage. ModelConfig and Hardware are the paths to
// read, relative ones already resolved from the spec's directory.
type GPU struct {
	Preset, ModelConfig, GPU, Link, Hardware string
	Microbatch, Sequence                     int
	FlashAttention                           bool
	ExpertParallel                           int
	Efficiency                               float64
	TP, DP                                   int
	Recompute                                string
	SequenceParallel                         bool
	DistributedOptimizer                     bool
	OverlapGradReduce                        bool
	GPUsPerNode                              int
	NodeLink                                 string
}

// Default holds the GPU timing model's one set of defaults: what a spec
// gets with cost: {cost_model: gpu} and nothing else, and the defaults of
// the command line's --gpu, --link, --microbatch-size and --seq-len (and of
// pipelab serve's choices), so that a command and a one-run sweep of the
// same settings price alike: GPT-3 XL (1.3B) stages on H100s over
// InfiniBand NDR, one sample of 2048 tokens per microbatch, each stage on
// one GPU (tp 1, dp 1) without recomputation. The paper figures name
// their hardware (A100s over NVLink) in their specs.
var Default = GPU{Preset: "gpt-1.3b", GPU: "h100", Link: "ib-ndr", Microbatch: 1, Sequence: 2048,
	TP: 1, DP: 1, Recompute: "none"}

// Config looks up the presets g names, reading the model from its
// model_config and the GPU and links from its hardware file when it has
// them: the one place GPU presets and files become a cost.GPUConfig, for
// specs and the command line's --model, --gpu, --link, ... alike. An
// unusable value is a *KeyError naming its key.
func (g GPU) Config() (cost.GPUConfig, error) {
	var m cost.Network
	var err error
	if g.ModelConfig != "" {
		if m, err = cost.ReadHFConfig(g.ModelConfig); err != nil {
			return cost.GPUConfig{}, &KeyError{"model_config", err}
		}
	} else if m, err = cost.LookupNetwork(g.Preset); err != nil {
		return cost.GPUConfig{}, &KeyError{"model", err}
	}
	par, err := g.parallelism()
	if err != nil {
		return cost.GPUConfig{}, err
	}
	cfg := cost.GPUConfig{Network: m, Microbatch: g.Microbatch, Sequence: g.Sequence, FlashAttention: g.FlashAttention, Parallel: par}
	if g.ExpertParallel < 0 {
		return cost.GPUConfig{}, &KeyError{"expert_parallel", fmt.Errorf("want 0 (none) or a number of GPUs, got %d", g.ExpertParallel)}
	}
	cfg.ExpertParallel = cost.ExpertParallelOn(g.ExpertParallel)
	if err := cfg.ExpertParallel.Check(m); err != nil {
		return cost.GPUConfig{}, &KeyError{"expert_parallel", err}
	}
	if g.Hardware != "" {
		if g.GPUsPerNode != 0 || g.NodeLink != "" {
			key := "gpus_per_node"
			if g.GPUsPerNode == 0 {
				key = "node_link"
			}
			return cost.GPUConfig{}, &KeyError{key, fmt.Errorf("the hardware file gives the nodes (ranks_per_node, link, inter_node_link)")}
		}
		h, err := cost.ReadHardware(g.Hardware)
		if err != nil {
			return cost.GPUConfig{}, &KeyError{"hardware", err}
		}
		return g.checked(g.withEfficiency(h.Apply(cfg)))
	}
	if cfg.GPU, err = cost.LookupGPU(g.GPU); err != nil {
		return cost.GPUConfig{}, &KeyError{"gpu", err}
	}
	if cfg.Link, err = cost.LookupLink(g.Link); err != nil {
		return cost.GPUConfig{}, &KeyError{"link", err}
	}
	if err := g.applyNodes(&cfg); err != nil {
		return cost.GPUConfig{}, err
	}
	return g.checked(g.withEfficiency(cfg))
}

// parallelism is the cluster keys as a cost.Parallelism: tp and dp of 0
// (left out) are 1, recompute "" is none. A key whose value cannot be, or
// that needs another, is a *KeyError naming it, as the command line's
// flags are refused.
func (g GPU) parallelism() (cost.Parallelism, error) {
	p := cost.Parallelism{Tensor: g.TP, Data: g.DP, SequenceParallel: g.SequenceParallel,
		DistributedOptimizer: g.DistributedOptimizer, OverlapGradReduce: g.OverlapGradReduce}
	switch {
	case g.TP < 0:
		return p, &KeyError{"tp", fmt.Errorf("want a number of GPUs of at least 1, got %d", g.TP)}
	case g.DP < 0:
		return p, &KeyError{"dp", fmt.Errorf("want a number of replicas of at least 1, got %d", g.DP)}
	case g.SequenceParallel && g.TP < 2:
		return p, &KeyError{"sequence_parallel", fmt.Errorf("splits along the sequence what tp splits: needs tp above 1")}
	case g.DistributedOptimizer && g.DP < 2:
		return p, &KeyError{"distributed_optimizer", fmt.Errorf("splits the optimizer state over the dp replicas: needs dp above 1")}
	case g.OverlapGradReduce && g.DP < 2:
		return p, &KeyError{"overlap_grad_reduce", fmt.Errorf("overlaps the gradient reduction of the dp replicas: needs dp above 1")}
	}
	if g.Recompute != "" {
		r, err := cost.ParseRecompute(g.Recompute)
		if err != nil {
			return p, &KeyError{"recompute", err}
		}
		p.Recompute = r
	}
	return p, nil
}

// applyNodes puts the GPUs into nodes of GPUsPerNode: NodeLink joins the
// GPUs of a node and Link, already in cfg, becomes the link between
// nodes. The two come together or not at all.
func (g GPU) applyNodes(cfg *cost.GPUConfig) error {
	switch {
	case g.GPUsPerNode < 0:
		return &KeyError{"gpus_per_node", fmt.Errorf("must not be negative, got %d", g.GPUsPerNode)}
	case g.GPUsPerNode == 0 && g.NodeLink != "":
		return &KeyError{"node_link", fmt.Errorf("needs the GPUs per node (gpus_per_node)")}
	case g.GPUsPerNode > 0 && g.NodeLink == "":
		return &KeyError{"gpus_per_node", fmt.Errorf("needs the link inside a node (node_link)")}
	case g.GPUsPerNode == 0:
		return nil
	}
	inside, err := cost.LookupLink(g.NodeLink)
	if err != nil {
		return &KeyError{"node_link", err}
	}
	cfg.InterNode, cfg.Link, cfg.RanksPerNode = cfg.Link, inside, g.GPUsPerNode
	return nil
}

// checked refuses parallel degrees the nodes cannot hold (a tensor degree
// beyond a node's GPUs or not dividing them). Where the configuration has
// nodes (gpus_per_node and node_link, or a hardware file's), an expert-
// parallel group takes them, not ExpertParallelOn's default nodes.
func (g GPU) checked(cfg cost.GPUConfig) (cost.GPUConfig, error) {
	if err := cfg.Parallel.Check(cfg.RanksPerNode); err != nil {
		return cost.GPUConfig{}, &KeyError{"tp", err}
	}
	if cfg.ExpertParallel.Degree > 1 && cfg.RanksPerNode > 0 {
		cfg.ExpertParallel.GPUsPerNode, cfg.ExpertParallel.IntraNode, cfg.ExpertParallel.InterNode = cfg.RanksPerNode, cfg.Link, cfg.InterNode
	}
	return cfg, nil
}

// withEfficiency applies the spec's efficiency when it gives one; else cfg
// keeps the hardware file's, or the default.
func (g GPU) withEfficiency(cfg cost.GPUConfig) cost.GPUConfig {
	if g.Efficiency != 0 {
		cfg.Efficiency = g.Efficiency
	}
	return cfg
}

// KeyError is a cost spec's unusable value: its key (model,
// model_config, gpu, link, hardware or a cluster key: tp, dp, recompute,
// gpus_per_node, ...) and why.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }
