package request

import (
	"context"
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// Pricing is a cost model for one table, with the memory model and
// message sizes when the cost model provides them (the GPU model).
type Pricing struct {
	Cost   cost.Model
	Memory cost.Memory       // nil: activations counted in M_B only
	Sizer  cost.MessageSizer // nil: messages carry no bytes
	Name   string            // the report's cost_model
	// MemoryLimit is the GPU's memory in bytes under the GPU model (0
	// otherwise): a rank whose peak exceeds it is marked.
	MemoryLimit float64
	// Params and ActiveParams are the GPU model's total parameters and
	// those a token runs through (0 otherwise).
	Params, ActiveParams float64
}

// SimulateRequest is one "pipelab simulate": a schedule, how it is
// priced, and the simulator's options.
type SimulateRequest struct {
	// Kind and Schedule name the table in the report: the generated
	// family (--kind) or the CSV it was read from (--schedule).
	Kind, Schedule string
	Table          *pipeline.Table
	// Lockstep times the table with PyTorch's unit-time lockstep check
	// (--cost-model lockstep) instead of Pricing: fixed policy only, no
	// variability, one iteration.
	Lockstep bool
	Pricing  Pricing
	// Options are the policy, its hint, patience and activation cap, and
	// the variability (whose Seed seeds the iterations too). Simulate
	// sets their Context to its own.
	Options sim.Options
	// Iterations is K, the iterations simulated (--iterations); 0 means 1.
	Iterations int
	// PostValidation times the step as the Zero Bubble runtime's optimizer
	// post-validation runs it (--post-validation): the ranks' iterations
	// overlap, so under the GPU model a step takes the longest rank span
	// plus that rank's own gradient sync and optimizer step
	// (cost.GPUModel.PostValidatedIteration). The table is built before
	// (zb-auto chosen by its span, ShapeFlags.ZBBySpan); the report says
	// so.
	PostValidation bool
}

// check fills the defaults and refuses a request no simulation could run,
// in one step; its errors match ErrBadInput.
func (r *SimulateRequest) check() error {
	if r.Iterations == 0 {
		r.Iterations = 1
	}
	switch {
	case r.Table == nil:
		return badInputf("simulate: no table")
	case r.Iterations < 1:
		return badInputf("--iterations must be at least 1, got %d", r.Iterations)
	case r.Lockstep && (r.Options.Policy != sim.Fixed || !r.Options.Variability.IsZero() || r.Iterations > 1):
		return badInputf("--cost-model lockstep is PyTorch's fixed unit-time check: no --policy ready, variability or --iterations")
	case !r.Lockstep && r.Pricing.Cost == nil:
		return badInputf("simulate: no cost model")
	}
	if _, gpu := r.Pricing.Cost.(*cost.GPUModel); r.PostValidation && r.Pricing.Params > 0 && !gpu {
		return badInputf("--post-validation: the optimizer step of a schedule that replicates stages, as Chimera does, is not priced")
	}
	for rank, x := range r.Options.Variability.Stragglers {
		if n := r.Table.Ranks(); rank >= n {
			return badInputf("--straggler %d:%g: rank %d is not among the table's %d ranks (0 to %d)", rank, x, rank, n, n-1)
		}
	}
	return nil
}

// Simulate times the request's table and reports its makespan, bubbles,
// per-rank busy, idle, comm wait and memory, with the timeline. It stops
// soon after ctx ends, with ctx's error.
func Simulate(ctx context.Context, req SimulateRequest) (SimulateReport, error) {
	if err := req.check(); err != nil {
		return SimulateReport{}, err
	}
	t, opt := req.Table, req.Options
	opt.Context = ctx
	rep := SimulateReport{
		Kind: req.Kind, Schedule: req.Schedule, NumRanks: t.Ranks(), Stages: t.Stages(), Microbatches: t.Microbatches,
		Policy: opt.Policy.String(),
	}
	if opt.Policy == sim.Ready {
		rep.Hint = opt.Hint.String()
		if opt.Hint == sim.TableOrder {
			rep.Patience = opt.Patience.String()
		}
	}
	grid, steps, lockErr := sim.TorchLockstep(t, req.Lockstep)
	if lockErr == nil {
		rep.Steps = &steps
	} else {
		rep.StepsNote = "lockstep n/a: " + lockErr.Error()
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	var tl *sim.Timeline
	var pr Pricing
	if req.Lockstep {
		if lockErr != nil {
			return rep, fmt.Errorf("--cost-model lockstep: %w", lockErr)
		}
		rep.Cost = "lockstep (PyTorch's unit-time check, SEND and RECV take a step)"
		tl = sim.FromGrid(grid)
	} else {
		pr = req.Pricing
		rep.Cost = pr.Name
		var err error
		if req.Iterations > 1 {
			// Iteration 0 is the timeline Simulate would give: its seed is
			// the variability's.
			seed := opt.Variability.Seed
			it, err := sim.SimulateIterations(t, pr.Cost, opt, req.Iterations, seed)
			if err != nil {
				return rep, err
			}
			tl = it.First
			rep.Iterations = &IterationReport{Count: req.Iterations, Seed: seed, Makespans: it.Makespans, Mean: it.Mean, Spread: it.Spread}
		} else if tl, err = sim.Simulate(t, pr.Cost, opt); err != nil {
			return rep, err
		}
	}
	rep.Timeline = tl
	rep.Makespan, rep.BubbleRatio = sim.Makespan(tl), sim.BubbleRatio(tl)
	rep.PostValidation = req.PostValidation
	if g, ok := pr.Cost.(*cost.GPUModel); ok {
		it, err := g.Iteration(t, rep.Makespan)
		if req.PostValidation {
			it, err = g.PostValidatedIteration(t, sim.RankSpans(tl))
		}
		if err != nil {
			return rep, err
		}
		rep.IterationSeconds, rep.ModelFLOPsPerGPU, rep.GPUs = it.Seconds, it.ModelFLOPsPerGPU, it.GPUs
		rep.Cluster = g.Config().Parallel != cost.Parallelism{} || g.Config().RanksPerNode > 0
	}
	vol := sim.Communication(tl, pr.Sizer)
	rep.Messages, rep.CommBytes = vol.Messages, vol.Bytes
	rep.MemoryLimit = pr.MemoryLimit
	rep.Params, rep.ActiveParams = pr.Params, pr.ActiveParams
	share := cost.StageShare(t)
	held := PeakHeld(tl, pr.Memory)
	for _, st := range sim.RankStats(tl, pr.Memory) {
		rep.Ranks = append(rep.Ranks, RankReport{Rank: st.Rank, Busy: st.Busy, Idle: st.Idle, Bubble: max(st.Idle-st.CommWait, 0), CommWait: st.CommWait,
			PeakActivations: held[st.Rank] * share, PeakMemoryBytes: st.PeakMemoryBytes,
			OverMemory: pr.MemoryLimit > 0 && st.PeakMemoryBytes > pr.MemoryLimit})
	}
	return rep, nil
}

// PeakHeld is the most activations each rank of tl holds, in M_B: under a
// memory model that prices the Zero Bubble split (cost.WeightGradMemory), a
// split microbatch holds only M_W between its I and its W, as its peak
// memory counts it (sim.PeakHeld); otherwise a microbatch counts whole
// until its W.
func PeakHeld(tl *sim.Timeline, mem cost.Memory) []float64 {
	share := 1.0
	if mem != nil {
		share = tune.WeightGradShareOf(mem, tl.Table.Stages())
	}
	return sim.PeakHeld(tl, share)
}
