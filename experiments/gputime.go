package experiments

import (
	"fmt"
	"slices"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// DefaultGPU holds the GPU timing model's one set of defaults: what a spec
// gets with cost: {cost_model: gpu} and nothing else, and the defaults of
// the command line's --gpu, --link, --microbatch-size and --seq-len (and of
// pipelab serve's choices), so that a command and a one-run sweep of the
// same settings price alike: GPT-3 XL (1.3B) stages on H100s over
// InfiniBand NDR, one sample of 2048 tokens per microbatch, each stage on
// one GPU (tp 1, dp 1) without recomputation. The paper figures name
// their hardware (A100s over NVLink) in their specs.
var DefaultGPU = CostSpec{CostModel: "gpu", Preset: "gpt-1.3b", GPU: "h100", Link: "ib-ndr", Microbatch: 1, Sequence: 2048,
	TP: 1, DP: 1, Recompute: "none"}

// gpuModel builds the GPU timing model of c for a pipeline of the given
// stage count, the model's layers split evenly (cost.EvenPartition).
func gpuModel(c CostSpec, stages int) (*cost.GPUModel, error) {
	cfg, err := c.GPUConfig()
	if err != nil {
		return nil, err
	}
	gm, err := cost.NewGPUModel(cfg, stages)
	if err != nil {
		return nil, fmt.Errorf("experiments: %d stages of %s: %w", stages, c.modelLabel(), err)
	}
	return gm, nil
}

// GPUConfig looks up the presets c names, reading the model from its
// model_config and the GPU and links from its hardware file when it has
// them: the one place GPU presets and files become a cost.GPUConfig, for
// specs and the command line's --model, --gpu, --link, ... alike. An
// unusable value is a *CostKeyError naming its key.
func (c CostSpec) GPUConfig() (cost.GPUConfig, error) {
	var m cost.Network
	var err error
	if c.ModelConfig != "" {
		if m, err = cost.ReadHFConfig(c.configPath()); err != nil {
			return cost.GPUConfig{}, &CostKeyError{"model_config", err}
		}
	} else if m, err = cost.LookupNetwork(c.Preset); err != nil {
		return cost.GPUConfig{}, &CostKeyError{"model", err}
	}
	par, err := c.parallelism()
	if err != nil {
		return cost.GPUConfig{}, err
	}
	cfg := cost.GPUConfig{Network: m, Microbatch: c.Microbatch, Sequence: c.Sequence, FlashAttention: c.FlashAttention, Parallel: par}
	if c.ExpertParallel < 0 {
		return cost.GPUConfig{}, &CostKeyError{"expert_parallel", fmt.Errorf("want 0 (none) or a number of GPUs, got %d", c.ExpertParallel)}
	}
	cfg.ExpertParallel = cost.ExpertParallelOn(c.ExpertParallel)
	if err := cfg.ExpertParallel.Check(m); err != nil {
		return cost.GPUConfig{}, &CostKeyError{"expert_parallel", err}
	}
	if c.Hardware != "" {
		if c.GPUsPerNode != 0 || c.NodeLink != "" {
			key := "gpus_per_node"
			if c.GPUsPerNode == 0 {
				key = "node_link"
			}
			return cost.GPUConfig{}, &CostKeyError{key, fmt.Errorf("the hardware file gives the nodes (ranks_per_node, link, inter_node_link)")}
		}
		h, err := cost.ReadHardware(c.hardwareFile())
		if err != nil {
			return cost.GPUConfig{}, &CostKeyError{"hardware", err}
		}
		return c.checked(c.withEfficiency(h.Apply(cfg)))
	}
	if cfg.GPU, err = cost.LookupGPU(c.GPU); err != nil {
		return cost.GPUConfig{}, &CostKeyError{"gpu", err}
	}
	if cfg.Link, err = cost.LookupLink(c.Link); err != nil {
		return cost.GPUConfig{}, &CostKeyError{"link", err}
	}
	if err := c.applyNodes(&cfg); err != nil {
		return cost.GPUConfig{}, err
	}
	return c.checked(c.withEfficiency(cfg))
}

// parallelism is the cluster keys as a cost.Parallelism: tp and dp of 0
// (left out) are 1, recompute "" is none. A key whose value cannot be, or
// that needs another, is a *CostKeyError naming it, as the command line's
// flags are refused.
func (c CostSpec) parallelism() (cost.Parallelism, error) {
	p := cost.Parallelism{Tensor: c.TP, Data: c.DP, SequenceParallel: c.SequenceParallel,
		DistributedOptimizer: c.DistributedOptimizer, OverlapGradReduce: c.OverlapGradReduce}
	switch {
	case c.TP < 0:
		return p, &CostKeyError{"tp", fmt.Errorf("want a number of GPUs of at least 1, got %d", c.TP)}
	case c.DP < 0:
		return p, &CostKeyError{"dp", fmt.Errorf("want a number of replicas of at least 1, got %d", c.DP)}
	case c.SequenceParallel && c.TP < 2:
		return p, &CostKeyError{"sequence_parallel", fmt.Errorf("splits along the sequence what tp splits: needs tp above 1")}
	case c.DistributedOptimizer && c.DP < 2:
		return p, &CostKeyError{"distributed_optimizer", fmt.Errorf("splits the optimizer state over the dp replicas: needs dp above 1")}
	case c.OverlapGradReduce && c.DP < 2:
		return p, &CostKeyError{"overlap_grad_reduce", fmt.Errorf("overlaps the gradient reduction of the dp replicas: needs dp above 1")}
	}
	if c.Recompute != "" {
		r, err := cost.ParseRecompute(c.Recompute)
		if err != nil {
			return p, &CostKeyError{"recompute", err}
		}
		p.Recompute = r
	}
	return p, nil
}

// applyNodes puts the GPUs into nodes of GPUsPerNode: NodeLink joins the
// GPUs of a node and Link, already in cfg, becomes the link between
// nodes. The two come together or not at all.
func (c CostSpec) applyNodes(cfg *cost.GPUConfig) error {
	switch {
	case c.GPUsPerNode < 0:
		return &CostKeyError{"gpus_per_node", fmt.Errorf("must not be negative, got %d", c.GPUsPerNode)}
	case c.GPUsPerNode == 0 && c.NodeLink != "":
		return &CostKeyError{"node_link", fmt.Errorf("needs the GPUs per node (gpus_per_node)")}
	case c.GPUsPerNode > 0 && c.NodeLink == "":
		return &CostKeyError{"gpus_per_node", fmt.Errorf("needs the link inside a node (node_link)")}
	case c.GPUsPerNode == 0:
		return nil
	}
	inside, err := cost.LookupLink(c.NodeLink)
	if err != nil {
		return &CostKeyError{"node_link", err}
	}
	cfg.InterNode, cfg.Link, cfg.RanksPerNode = cfg.Link, inside, c.GPUsPerNode
	return nil
}

// checked refuses parallel degrees the nodes cannot hold (a tensor degree
// beyond a node's GPUs or not dividing them). Where the configuration has
// nodes (gpus_per_node and node_link, or a hardware file's), an expert-
// parallel group takes them, not ExpertParallelOn's default nodes.
func (c CostSpec) checked(cfg cost.GPUConfig) (cost.GPUConfig, error) {
	if err := cfg.Parallel.Check(cfg.RanksPerNode); err != nil {
		return cost.GPUConfig{}, &CostKeyError{"tp", err}
	}
	if cfg.ExpertParallel.Degree > 1 && cfg.RanksPerNode > 0 {
		cfg.ExpertParallel.GPUsPerNode, cfg.ExpertParallel.IntraNode, cfg.ExpertParallel.InterNode = cfg.RanksPerNode, cfg.Link, cfg.InterNode
	}
	return cfg, nil
}

// CostKeyError is a cost spec's unusable value: its key (model,
// model_config, gpu, link, hardware or a cluster key: tp, dp, recompute,
// gpus_per_node, ...) and why.
type CostKeyError struct {
	Key string
	Err error
}

func (e *CostKeyError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *CostKeyError) Unwrap() error { return e.Err }

// withEfficiency applies the spec's efficiency when it gives one; else cfg
// keeps the hardware file's, or the default.
func (c CostSpec) withEfficiency(cfg cost.GPUConfig) cost.GPUConfig {
	if c.Efficiency != 0 {
		cfg.Efficiency = c.Efficiency
	}
	return cfg
}

// shiftRounds delays the events of each LocalSGD round by the averagings
// before it: events of microbatch m, in round j = m / round, start and end
// j·avg later. Rounds run one after another on a replica-averaging
// pipeline (stage 0 starts a round after the previous round's last
// backward, docs/reference.md §1.5), so inserting an averaging of length avg
// between rounds moves every later round by exactly avg.
func shiftRounds(tl *sim.Timeline, round int, avg float64) *sim.Timeline {
	if avg == 0 {
		return tl
	}
	out := &sim.Timeline{Table: tl.Table, Events: make([]sim.Event, len(tl.Events))}
	for i, e := range tl.Events {
		if e.Action.Microbatch >= 0 {
			d := float64(e.Action.Microbatch/round) * avg
			e.Start += d
			e.End += d
		}
		out.Events[i] = e
	}
	sim.SortEvents(out.Events)
	return out
}

// OverMemory finds the first stage of m (a model cut into stages stages)
// whose one microbatch's activations take more than the GPU's memory: no
// schedule can run such a workload, and a memory column would report
// figures like a million GiB per rank. The GPU is cfg's, the hardware
// file's when there is one. A spec (checkFits) and the command line refuse
// the same workloads by it.
func OverMemory(cfg cost.GPUConfig, m cost.Memory, stages int) (stage int, need float64, over bool) {
	for s := range stages {
		if need := m.ActivationBytes(s); need > cfg.GPU.MemoryBytes {
			return s, need, true
		}
	}
	return 0, 0, false
}

// OverMemoryText says, in the words a spec, the command line and pipelab
// compare share, that stage cannot hold one microbatch of need bytes on
// cfg's GPU; each caller adds the settings to lower.
func OverMemoryText(cfg cost.GPUConfig, stage int, need float64) string {
	return fmt.Sprintf("one microbatch's activations on stage %d take %s, more than the %s's %s",
		stage, budget.Format(need), cfg.GPU.Name, budget.Format(cfg.GPU.MemoryBytes))
}

// checkFits refuses a GPU-timed convergence spec one of whose stage counts
// cannot hold one microbatch (OverMemory), as pipelab train refuses it,
// and a GPU-timed schedules spec one of whose families cannot, at one of
// its rank counts, as pipelab compare refuses to rank it.
func (s *Spec) checkFits(v validator) error {
	if !s.Cost.desc().GPU || (s.Measure != Convergence && s.Measure != Schedules) {
		return nil
	}
	cfg, err := s.Cost.GPUConfig()
	if err != nil {
		return nil // reported with its key by the cost checks
	}
	if s.Measure == Schedules {
		return s.checkFamiliesFit(v, cfg)
	}
	for i, st := range s.Stages {
		gm, err := cost.NewGPUModel(cfg, st)
		if err != nil {
			continue // the run names what the model cannot be cut into
		}
		if stage, need, over := OverMemory(cfg, gm, st); over {
			return v.fail(fmt.Sprintf("S = %d: %s; lower microbatch_size or seq_len", st, OverMemoryText(cfg, stage, need)), "stages", i)
		}
	}
	return nil
}

// checkFamiliesFit is checkFits for the schedules measure: a family's stage
// count at P ranks is its table's (P times its chunks per rank), so each
// table the runs generate (tablesOf) is generated and priced.
func (s *Spec) checkFamiliesFit(v validator, cfg cost.GPUConfig) error {
	for _, ranks := range s.Ranks {
		for _, st := range s.tablesOf(ranks) {
			t, err := pipeline.Generate(st.family, st.shape)
			if err != nil {
				continue // the run names the refusal
			}
			gm, err := cost.GPUForTable(cfg, t)
			if err != nil {
				continue // the run names what the model cannot be cut into
			}
			if stage, need, over := OverMemory(cfg, gm, t.Stages()); over {
				return v.fail(fmt.Sprintf("%s at %d ranks (%d stages): %s; lower microbatch_size or seq_len",
					st.family, ranks, t.Stages(), OverMemoryText(cfg, stage, need)), "kinds", slices.Index(s.Families, st.family))
			}
		}
	}
	return nil
}
