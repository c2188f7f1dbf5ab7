package train

import (
	"cmp"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/request"
	"math"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
)

// run is the one-run spec the flags describe: pipelab train executes it
// with experiments.Train, the entry a sweep's runs go through, so the
// command line and a sweep of the same settings give the same curve.
// Both seeds are --seed.
func (f *trainFlags) run() (experiments.Run, error) {
	r := experiments.Run{Measure: experiments.Convergence, Objective: f.objective, N: f.n, D: f.d, Batch: f.batchSize,
		Method: f.method, Stages: f.stages, Step: f.stepSize, Delta: f.delta, LocalSteps: f.localSteps,
		TotalMicrobatches: f.totalMicrobatches, Budget: f.timeBudget, LogEvery: f.logEvery, LogPoints: f.logPoints,
		Cost: costSpec(&f.costs), Optimizer: f.optimizerSettings(), Accumulate: f.accumulate,
		PipeMareWarmup: f.pipemareWarmup, PipeMareDecay: f.pipemareDecay, DCLambda: f.dcLambda, EFLambda: f.efLambda,
		TargetLoss: f.targetLoss, Seed: f.seed, DataSeed: f.seed, Data: f.data, Labels: f.labels}
	d := f.methodDesc()
	if d.Takes(optim.ParamDCLambda) && !f.set["dc-lambda"] {
		r.DCLambda = d.DCLambda
	}
	if o := f.objectiveDesc(); o.Noise {
		r.Noise = o.DefaultNoise
		if f.set["noise"] {
			r.Noise = f.noise
		}
	}
	if f.objectiveDesc().L2 {
		l2 := f.l2
		r.L2 = &l2
	}
	if f.objectiveDesc().LM {
		r.Corpus, r.BlocksPerStage, r.Embed, r.SeqLen = f.lm.corpus, f.lm.blocksPerStage, f.lm.embed, f.lm.seqLen
		// The validation loss printed is over the whole held-out split.
		r.ValidationWindows = math.MaxInt32
	}
	switch d.Replay {
	case optim.ReplayAveraging:
		r.Replicas = f.replicas
	case optim.ReplayFlush:
		r.Microbatches = f.microbatches
	}
	if f.kind != "" || d.Replay == optim.ReplayFlush {
		r.Family = f.family()
	}
	if f.schedule != "" {
		t, err := request.ReadScheduleFile(f.schedule)
		if err != nil {
			return r, err
		}
		r.Table, r.Stages, r.Microbatches = t, t.Stages(), t.Microbatches
	}
	if d.Replay == optim.ReplaySampled {
		if err := f.delayModel(&r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// delayModel sets rpd's delays: uniform up to --delta, PipeDream's exact
// delays, a model measured on them, or a trace file.
func (f *trainFlags) delayModel(r *experiments.Run) error {
	switch f.delays {
	case "uniform":
	case "exact":
		r.DelayModel = experiments.DelayExact
	case optim.DelayModelPipeDreamMean, optim.DelayModelPipeDreamProfile:
		r.DelayModel = f.delays
	default:
		trace, err := optim.LoadDelayTrace(f.delays)
		if err != nil {
			return fault.Bad(fmt.Errorf("--delays: %w", err))
		}
		if trace.Stages != f.stages {
			return fault.Bad(fmt.Errorf("--delays: %s: %d delays per line, but --stages is %d", f.delays, trace.Stages, f.stages))
		}
		if k := f.totalMicrobatches * f.stages; !f.set["time-budget"] && len(trace.Rows) < k {
			return fault.Bad(fmt.Errorf("--delays: %s: %d delay rows, but the run has K = N·S = %d updates (--total-microbatches %d, --stages %d)", f.delays, len(trace.Rows), k, f.totalMicrobatches, f.stages))
		}
		r.DelayTrace = trace
	}
	return nil
}

// family is the generated family the run replays: --kind, or the
// method's own (optim's table of methods).
func (f *trainFlags) family() string {
	return cmp.Or(f.kind, f.methodDesc().Family)
}

// objectiveDesc is the descriptor of --objective; a name no objective
// has, which validate refuses, gets the zero descriptor, which has no
// trait.
func (f *trainFlags) objectiveDesc() experiments.ObjectiveDesc {
	d, _ := experiments.ObjectiveNamed(f.objective)
	return d
}

// costDesc is the descriptor of the cost flags' model; lockstep, which
// only the command line has and train refuses, gets the zero descriptor,
// which has no trait.
func (f *trainFlags) costDesc() experiments.CostModelDesc {
	d, _ := experiments.CostModelNamed(f.costs.Kind())
	return d
}

// methodDesc is the descriptor of --method; a name no method has, which
// validate refuses, gets the zero descriptor, which has no trait.
func (f *trainFlags) methodDesc() optim.MethodDesc {
	d, _ := optim.LookupMethod(f.method)
	return d
}

// tableName is the family or file the run replayed, "" for rpd's
// sampled delays.
func (f *trainFlags) tableName() string {
	switch {
	case f.schedule != "":
		return f.schedule
	case f.methodDesc().Replay == optim.ReplaySampled && f.delays != "exact":
		return ""
	}
	return f.family()
}

// costName names the clock of the run for the report.
func (f *trainFlags) costName(res *experiments.Trained) string {
	if f.costDesc().Unit || res.Table == nil {
		return "unit"
	}
	pr, err := f.costs.PricingFor(res.Table)
	if err != nil {
		return f.costs.Kind()
	}
	return pr.Name
}

// costSpec is the cost model of the flags as a run's cost spec.
func costSpec(c *request.CostFlags) experiments.CostSpec {
	switch c.Kind() {
	case "explicit":
		return experiments.CostSpec{CostModel: experiments.ExplicitCost, Explicit: experiments.ExplicitCosts{Fwd: c.Fwd, Bwd: c.Bwd, WGrad: c.WGrad, Comm: c.Comm}}
	case "measured":
		m := c.Measured.Read
		return experiments.CostSpec{CostModel: experiments.MeasuredCost, Measured: &m}
	case "gpu":
		g := c.Presets.Spec()
		return experiments.CostSpec{CostModel: "gpu", Preset: g.Preset, ModelConfig: g.ModelConfig, GPU: g.GPU, Link: g.Link,
			Hardware: g.Hardware, Microbatch: g.Microbatch, Sequence: g.Sequence, FlashAttention: g.FlashAttention, Efficiency: g.Efficiency,
			TP: g.TP, DP: g.DP, Recompute: g.Recompute, SequenceParallel: g.SequenceParallel,
			DistributedOptimizer: g.DistributedOptimizer, OverlapGradReduce: g.OverlapGradReduce,
			GPUsPerNode: g.GPUsPerNode, NodeLink: g.NodeLink, ExpertParallel: g.ExpertParallel}
	}
	return experiments.CostSpec{CostModel: "unit"}
}

// checkLMCorpus checks the corpus against the shape the run will build
// (experiments.LMConfig with S stages), so that an unusable corpus is
// reported, naming it, before anything runs.
func (f *trainFlags) checkLMCorpus() error {
	text, err := charlm.OpenCorpus(f.lm.corpus, f.seed, f.n)
	if err != nil {
		return err
	}
	cfg := experiments.LMConfig(f.lm.corpus, f.lm.embed, f.lm.seqLen)
	cfg.Stages, cfg.BlocksPerStage, cfg.Batch, cfg.Seed = f.stages, f.lm.blocksPerStage, f.batchSize, f.seed
	if err := charlm.Check(cfg, text); err != nil {
		return fmt.Errorf("--corpus %s: %w", f.lm.corpus, err)
	}
	return nil
}
