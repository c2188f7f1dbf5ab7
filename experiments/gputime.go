package experiments

import (
	"fmt"
	"github.com/pipelab/pipelab/experiments/costspec"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// DefaultGPU is the GPU timing model's one set of defaults
// (costspec.Default) as a cost spec.
var DefaultGPU = CostSpec{CostModel: "gpu", Preset: costspec.Default.Preset, GPU: costspec.Default.GPU, Link: costspec.Default.Link,
	Microbatch: costspec.Default.Microbatch, Sequence: costspec.Default.Sequence,
	TP: costspec.Default.TP, DP: costspec.Default.DP, Recompute: costspec.Default.Recompute}

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

// GPUConfig resolves c's GPU keys (costspec.GPU.Config, the one
// resolution of GPU presets and files for specs and the command line
// alike), model_config and hardware taken from the spec's directory. An
// unusable value is a *CostKeyError naming its key.
func (c CostSpec) GPUConfig() (cost.GPUConfig, error) {
	return c.gpuKeys().Config()
}

// gpuKeys is c's GPU keys, its files' paths resolved.
func (c CostSpec) gpuKeys() costspec.GPU {
	return costspec.GPU{Preset: c.Preset, ModelConfig: c.configPath(), GPU: c.GPU, Link: c.Link, Hardware: c.hardwareFile(),
		Microbatch: c.Microbatch, Sequence: c.Sequence, FlashAttention: c.FlashAttention, ExpertParallel: c.ExpertParallel,
		Efficiency: c.Efficiency, TP: c.TP, DP: c.DP, Recompute: c.Recompute, SequenceParallel: c.SequenceParallel,
		DistributedOptimizer: c.DistributedOptimizer, OverlapGradReduce: c.OverlapGradReduce,
		GPUsPerNode: c.GPUsPerNode, NodeLink: c.NodeLink}
}

// CostKeyError is a cost spec's unusable value (costspec.KeyError).
type CostKeyError = costspec.KeyError

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

// OverMemory and OverMemoryText are costspec's: the one check that a
// microbatch fits a GPU, and its words.
var (
	OverMemory     = costspec.OverMemory
	OverMemoryText = costspec.OverMemoryText
)

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
