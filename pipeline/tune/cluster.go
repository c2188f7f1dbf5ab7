package tune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// ClusterProblem is what to tune on a cluster: a model on a number of
// GPUs, in nodes, with a fixed batch. The tuner chooses how to split the
// GPUs into tensor-parallel groups inside a node (T), pipeline ranks (P)
// and data-parallel replicas (D), T·P·D = GPUs, and for each split runs
// Tune (partition, schedule) at the microbatch count the batch leaves:
// M = Batch / (D · Config.Microbatch).
type ClusterProblem struct {
	// Config is the model, GPU, links and microbatch, with
	// RanksPerNode GPUs a node (0: one node holds every GPU). Its
	// Parallel gives the recomputation, sequence parallelism and the
	// other settings kept in every split; the tuner sets Tensor and Data.
	Config cost.GPUConfig
	// GPUs is the number of GPUs, T·P·D.
	GPUs int
	// Batch is the samples of one iteration over all replicas.
	Batch int
	// MemoryBytes and Exhaustive are Problem's; Schedules too, except
	// that empty means DefaultSchedules without Chimera, whose replicated
	// stages the step's gradient reduction is not priced for.
	MemoryBytes float64
	Schedules   []Schedule
	Exhaustive  int
	// Sim is Problem's: the simulations' options, whose Context ends the
	// search of every split.
	Sim sim.Options
	// PostValidation is Problem's: iterations overlap, so each split's
	// search ranks by the longest rank span and its step is timed by
	// cost.GPUModel.PostValidatedIteration.
	PostValidation bool
}

// Split is one way to spread the GPUs: T·P·D, and the best run Tune found
// for it, timed as a whole step.
type Split struct {
	Tensor, Pipeline, Data int
	// Best is Tune's choice for the split; nil when nothing fits (Why
	// says so).
	Best *Candidate
	// Iteration is Best's whole step (cost.GPUModel.Iteration, or
	// PostValidatedIteration under ClusterProblem.PostValidation).
	Iteration cost.Iteration
	Why       string
}

// ClusterResult is the cluster tuner's choice and every split it tried.
type ClusterResult struct {
	// Best is the split with the shortest step among those that fit.
	Best Split
	// Splits lists every split tried, in the order of T, then P.
	Splits []Split
}

// MaxClusterSplits bounds the splits TuneCluster tries, each a Tune run.
const MaxClusterSplits = 64

// TuneCluster tries every split of the GPUs into T·P·D with T a divisor
// of the GPUs per node, P at most the model's layers and D·b dividing the
// batch, tunes each (Tune) and picks the one whose whole step (the
// pipeline, then the gradient reduction and the optimizer step) is
// shortest, among those that fit the memory. Splits are tried one after
// another; each Tune runs its schedules in parallel.
func TuneCluster(p ClusterProblem) (*ClusterResult, error) {
	splits, err := p.Splits()
	if err != nil {
		return nil, err
	}
	res := &ClusterResult{}
	found := false
	for _, sp := range splits {
		if ctx := p.Sim.Context; ctx != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sp = p.tune(sp)
		res.Splits = append(res.Splits, sp)
		if sp.Best != nil && (!found || sp.Iteration.Seconds < res.Best.Iteration.Seconds) {
			res.Best, found = sp, true
		}
	}
	if !found {
		var why []string
		for _, sp := range res.Splits {
			why = append(why, fmt.Sprintf("t %d p %d d %d: %s", sp.Tensor, sp.Pipeline, sp.Data, sp.Why))
		}
		return nil, fmt.Errorf("tune: no split of %d GPUs runs %s: %s", p.GPUs, p.Config.Network.Name, strings.Join(why, "; "))
	}
	return res, nil
}

// Splits lists the T·P·D splits TuneCluster tries, refusing a problem
// with none or with more than MaxClusterSplits.
func (p ClusterProblem) Splits() ([]Split, error) {
	if p.GPUs < 1 || p.Batch < 1 || p.Config.Microbatch < 1 {
		return nil, fmt.Errorf("tune: GPUs %d, batch %d and microbatch %d must be at least 1", p.GPUs, p.Batch, p.Config.Microbatch)
	}
	layers, err := p.Config.Layers()
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	perNode := p.Config.RanksPerNode
	if perNode == 0 {
		perNode = p.GPUs
	}
	var out []Split
	for t := 1; t <= perNode && t <= p.GPUs; t++ {
		if perNode%t != 0 || p.GPUs%t != 0 {
			continue
		}
		for pp := 1; pp <= p.GPUs/t && pp <= len(layers); pp++ {
			if (p.GPUs/t)%pp != 0 {
				continue
			}
			d := p.GPUs / (t * pp)
			if p.Batch%(d*p.Config.Microbatch) != 0 {
				continue
			}
			out = append(out, Split{Tensor: t, Pipeline: pp, Data: d})
		}
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("tune: no split of %d GPUs (nodes of %d) into tensor × pipeline × data divides the batch %d into microbatches of %d",
			p.GPUs, perNode, p.Batch, p.Config.Microbatch)
	case len(out) > MaxClusterSplits:
		return nil, fmt.Errorf("tune: %d splits of %d GPUs, more than %d: give fewer GPUs or a batch fewer splits divide", len(out), p.GPUs, MaxClusterSplits)
	}
	return out, nil
}

// tune runs Tune on one split and times its best run as a whole step.
func (p ClusterProblem) tune(sp Split) Split {
	cfg := p.Config
	cfg.Parallel.Tensor, cfg.Parallel.Data = sp.Tensor, sp.Data
	m := p.Batch / (sp.Data * cfg.Microbatch)
	schedules := p.Schedules
	if len(schedules) == 0 {
		schedules = slices.DeleteFunc(slices.Clone(DefaultSchedules), func(s Schedule) bool { return s.Family == "chimera" })
	}
	res, err := Tune(Problem{Config: cfg, Ranks: sp.Pipeline, Microbatches: []int{m}, MemoryBytes: p.MemoryBytes,
		Schedules: schedules, Exhaustive: p.Exhaustive, Sim: p.Sim, PostValidation: p.PostValidation})
	if err != nil {
		sp.Why = err.Error()
		return sp
	}
	best := res.Best
	sp.Best = &best
	g, err := cost.GPUForTablePartition(cfg, best.Table, best.Partition)
	if err != nil {
		sp.Best, sp.Why = nil, err.Error()
		return sp
	}
	gm, ok := g.(*cost.GPUModel)
	if !ok {
		sp.Best, sp.Why = nil, fmt.Sprintf("%s replicates stages; the step of its gradient reduction is not priced", best.Schedule)
		return sp
	}
	if p.PostValidation {
		if best.Timeline == nil {
			sp.Best, sp.Why = nil, "tune: the chosen run has no timeline to take the ranks' spans from"
			return sp
		}
		sp.Iteration, err = gm.PostValidatedIteration(best.Table, sim.RankSpans(best.Timeline))
	} else {
		sp.Iteration, err = gm.Iteration(best.Table, best.Makespan)
	}
	if err != nil {
		sp.Best, sp.Why = nil, err.Error()
	}
	return sp
}
