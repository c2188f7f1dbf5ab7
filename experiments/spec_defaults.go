package experiments

import (
	"slices"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
)

// setDefaults writes out, in one step, every default a spec leaves to
// pipelab: the keys every measure shares here, the measure's own in its
// setDefaults. Validate runs it first; the checks that follow read the
// spec with its defaults written out and change nothing
// (TestChecksChangeNothing). "pipelab sweep SPEC --print-spec" prints a
// spec after this step.
//
// Written out:
//   - measure: convergence; seeds: 1;
//   - cost_model: unit, and under gpu the model (gpt-1.3b unless
//     model_config is given), gpu and link (a100, nvlink unless hardware
//     is given), microbatch_size 1 and seq_len 2048, tp 1, dp 1 and
//     recompute none (DefaultGPU);
//   - convergence: selection_rule best-final; charlm's corpus
//     tinyshakespeare and blocks_per_stage 1; rpd's deltas [paper]; sync's kind 1f1b (DefaultFlush);
//     ef_lambda, pipemare_decay and dc_lambda their optim defaults;
//   - delays: total_microbatches_per_stage 10 (N = 10S, the reference's)
//     unless total_microbatches is given;
//   - delay-profiles: total_microbatches_per_stage 10, methods
//     [pipedream], kinds [pipedream].
//
// Left implicit, because a run's id names the spec as written and a
// written-out default would change the ids of sweeps already on disk, and
// resolved where the run is built:
//   - an asynchronous method's kind pipedream (DefaultAsyncFamily) is
//     written as none;
//   - charlm's embed and seq_len: 0 takes LMConfig's, 32 and 16 (markov
//     64 and 32);
//   - accumulate 0 (2bw, ef) and sync's microbatches 0 mean S;
//   - an optimizer without a name is sgd; extend_grid none is 0 (off);
//   - logistic's l2: none takes objectives.DefaultL2;
//   - cost.efficiency 0 takes the hardware file's, or cost.DefaultEfficiency.
func (s *Spec) setDefaults() {
	if s.Measure == "" {
		s.Measure = Convergence
	}
	if s.Seeds == 0 {
		s.Seeds = 1
	}
	s.Cost.setDefaults()
	if m, ok := measures[s.Measure]; ok {
		m.setDefaults(s)
	}
}

// setDefaults fills the GPU timing model's keys the spec leaves out; the
// unit cost model takes none.
func (c *CostSpec) setDefaults() {
	if c.CostModel == "" {
		c.CostModel = "unit"
	}
	if !c.desc().GPU {
		return
	}
	def := func(p *string, d string) {
		if *p == "" {
			*p = d
		}
	}
	if c.ModelConfig == "" {
		def(&c.Preset, DefaultGPU.Preset)
	}
	if c.Hardware == "" {
		def(&c.GPU, DefaultGPU.GPU)
		def(&c.Link, DefaultGPU.Link)
	}
	if c.Microbatch == 0 {
		c.Microbatch = DefaultGPU.Microbatch
	}
	if c.Sequence == 0 {
		c.Sequence = DefaultGPU.Sequence
	}
	if c.TP == 0 {
		c.TP = DefaultGPU.TP
	}
	if c.DP == 0 {
		c.DP = DefaultGPU.DP
	}
	def(&c.Recompute, DefaultGPU.Recompute)
}

// setConvergenceDefaults fills a convergence spec's defaults.
func (s *Spec) setConvergenceDefaults() {
	if s.Select == "" {
		s.Select = "best-final"
	}
	if slices.ContainsFunc(s.Objectives, func(o string) bool { return objectiveOf(o).LM }) {
		if s.Corpus == "" {
			s.Corpus = charlm.CorpusTinyShakespeare
		}
		if s.BlocksPerStage == 0 {
			s.BlocksPerStage = 1
		}
	}
	for i := range s.Methods {
		s.Methods[i].setDefaults()
	}
}

// setDefaults fills a convergence method's defaults, each only for the
// method that takes the key (the checks refuse it on any other).
func (m *MethodSpec) setDefaults() {
	d := methodOf(m.Name)
	switch d.Replay {
	case optim.ReplaySampled:
		if len(m.Deltas) == 0 {
			m.Deltas = []Delta{{Paper: true}}
		}
	case optim.ReplayFlush:
		if m.Family == "" {
			m.Family = DefaultFlush
		}
	}
	if d.Takes(optim.ParamEFLambda) && m.EFLambda == nil {
		l := optim.DefaultEFLambda
		m.EFLambda = &l
	}
	if d.Takes(optim.ParamPipeMare) && m.PipeMareDecay == nil {
		decay := optim.DefaultPipeMareDecay
		m.PipeMareDecay = &decay
	}
	if d.Takes(optim.ParamDCLambda) && m.DCLambda == nil {
		l := d.DCLambda
		m.DCLambda = &l
	}
	if m.Family == DefaultAsyncFamily && d.Async() {
		// Runs on PipeDream's grid keep the names (and ids) they had
		// before the key kind existed.
		m.Family = ""
	}
}

// setDelaysDefaults measures N = 10S, the reference's setting
// (docs/reference.md §1.3), when the spec gives no microbatch counts.
func (s *Spec) setDelaysDefaults() {
	if s.TotalMicrobatchesPerStage == 0 && len(s.TotalMicrobatches) == 0 {
		s.TotalMicrobatchesPerStage = 10
	}
}

// setDelayProfilesDefaults measures PipeDream's grid at N = 10S when the
// spec names no tables, methods or microbatches.
func (s *Spec) setDelayProfilesDefaults() {
	if s.TotalMicrobatchesPerStage == 0 {
		s.TotalMicrobatchesPerStage = 10
	}
	if len(s.Methods) == 0 {
		s.Methods = []MethodSpec{{Name: "pipedream"}}
	}
	if len(s.Families) == 0 {
		s.Families = []string{DefaultAsyncFamily}
	}
}
