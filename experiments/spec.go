package experiments

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pipelab/pipelab/internal/inputfile"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Measures a spec can take: what its runs measure (the spec key measure).
const (
	// Convergence replays optimizers on an objective under a schedule and
	// records loss curves (the PipeDream paper's convergence figures).
	Convergence = "convergence"
	// DelayStats measures PipeDream's delays k - j_k^(s) per stage count
	// (docs/reference.md §1.3).
	DelayStats = "delays"
	// Schedules compares tabular schedules at the formula, lockstep and
	// simulated levels (the tabular-schedule paper).
	Schedules = "schedules"
)

// Spec is an experiment or sweep as written in YAML. Every list is a sweep
// axis: the runs are the cartesian product of the axes (Expand). Zero
// fields take the defaults documented on each field.
type Spec struct {
	// Name is the experiment: it labels the results, the tables'
	// experiment column (the spec key experiment; name until issue 14).
	Name string `yaml:"experiment"`
	// Measure is what the runs measure: convergence (the default),
	// delays, schedules or delay-profiles (the spec key measure;
	// experiment until issue 14).
	Measure string `yaml:"measure"`
	// Seed is the root of every random stream of every run.
	Seed uint64 `yaml:"seed"`
	// Seeds is the number of replicates of each configuration (default 1):
	// each draws its own data set and noise.
	Seeds int `yaml:"seeds"`

	// Objectives names the problems: quadratic, tridiagonal, logistic,
	// charlm.
	Objectives []string `yaml:"objectives"`
	// N is the number of samples, D the dimension, Batch the batch size
	// (linear objectives; charlm uses Batch as sequences per batch and N
	// as the markov corpus's length).
	N     int `yaml:"n"`
	D     int `yaml:"d"`
	Batch int `yaml:"batch_size"`
	// Corpus is charlm's text: tinyshakespeare (the default, shipped with
	// charlm), markov (the generated chain, n characters to train on) or
	// the path of a UTF-8 text file, relative to the working directory.
	// BlocksPerStage is charlm's GPT blocks per middle stage (default 1).
	// Embed and SeqLen are its embedding width E and context length T
	// (0: LMConfig's 32 and 16, on the markov corpus 64 and 32); E must be
	// a multiple of its 4 heads.
	Corpus         string `yaml:"corpus"`
	BlocksPerStage int    `yaml:"blocks_per_stage"`
	Embed          int    `yaml:"embed"`
	SeqLen         int    `yaml:"seq_len"`
	// Noise lists σ, the standard deviation of the logistic objective's
	// additive gradient noise per coordinate (docs/reference.md §1.7); a
	// sweep axis, objectives.DefaultNoise when empty. The random quadratic
	// takes it too (none when empty). Every σ of a replicate sees the same
	// data set.
	Noise []float64 `yaml:"noise"`
	// L2 is the logistic objective's L2 weight λ, one value for the spec
	// (objectives.DefaultL2 when absent; a run's name carries it only when
	// given, as pipelab train's --l2).
	L2 *float64 `yaml:"l2"`

	// Methods lists the optimizers with their step-size grids.
	Methods []MethodSpec `yaml:"methods"`
	// Stages lists the pipeline stage counts S (each at least 2) of the
	// convergence, delays and delay-profiles measures; Ranks lists the
	// pipeline ranks P (each at least 2) of the schedules measure, whose
	// tables put V chunks on a rank (docs/cli.md, "Ranks, stages,
	// microbatches").
	Stages []int `yaml:"stages"`
	Ranks  []int `yaml:"ranks"`
	// TotalMicrobatches lists fixed microbatch counts N over a run; Budget
	// lists time budgets instead (each method then gets the smallest N
	// whose timeline reaches the budget, sync the fewest iterations,
	// docs/reference.md §1.6). Exactly one is set for convergence runs.
	// TotalMicrobatchesPerStage, for delays and delay-profiles, sets
	// N = k·S.
	TotalMicrobatches         []int     `yaml:"total_microbatches"`
	Budget                    []float64 `yaml:"time_budget"`
	TotalMicrobatchesPerStage int       `yaml:"total_microbatches_per_stage"`
	// Microbatches lists the microbatches M of one iteration of the
	// schedules measure's tables, as pipelab compare --microbatches.
	Microbatches []int `yaml:"microbatches"`
	// DelayRows, for delays, also writes the delay_rows table: every
	// delay k - j_k^(s), one row per block update and stage (N·S² rows a
	// run), beside the statistics of the delays table.
	DelayRows bool `yaml:"delay_rows"`
	// Updates, for RPD-only runs without a timeline, is K; when zero RPD
	// gets N·S iterations, PipeDream's number of block updates.
	Updates int `yaml:"updates"`
	// Cut, with fixed microbatches, ends every run at the end of the
	// shortest timeline among the spec's methods at its S (CutShortest,
	// the PipeDream paper's notebook): the final loss is the loss at that
	// time, and the curves stop there. Empty: every run ends with its own
	// timeline.
	Cut string `yaml:"cut"`
	// LogEvery is the curve's logging interval in block updates or steps
	// (0: the method's default).
	LogEvery int `yaml:"log_every"`
	// LogPoints is the number of logged losses per run when LogEvery is
	// not given (0: optim.DefaultRecords, 100). A logged loss costs a
	// full-data loss, and the LM's a validation loss too: a figure whose
	// records cost more than its gradients asks for fewer.
	LogPoints int `yaml:"log_points"`

	// Families lists the schedule families of a schedules experiment.
	Families []string `yaml:"kinds"`

	// Cost is the timing model (unit time by default).
	Cost CostSpec `yaml:"cost"`
	// Select is the step-size rule, the runs table's selection_rule:
	// best-final (default) or stable.
	Select string `yaml:"selection_rule"`
	// TargetLoss, when positive, times every convergence run to its first
	// logged loss at or below it (the validation loss where the objective
	// has one): the runs table's time_to_target and updates_to_target.
	TargetLoss float64 `yaml:"target_loss"`
	// ExtendGrid is how many steps each method's step-size grid may grow
	// by beyond each edge when a group's selected step is at that edge
	// (spec_extend.go; 0 when absent: no extension; the figure presets
	// write 3).
	ExtendGrid *int `yaml:"extend_grid"`
}

// MethodSpec is one optimizer of a convergence experiment.
type MethodSpec struct {
	// Name is pipedream, rpd, localsgd or sync.
	Name string `yaml:"name"`
	// Steps is the step-size grid.
	Steps Grid `yaml:"step_sizes"`
	// Deltas lists RPD's delay bounds δ; "paper" means ⌊S² - S/2⌋.
	// pipedream-mean and pipedream-profile name delay models measured on
	// PipeDream's timeline instead (DelayModelOf).
	Deltas []Delta `yaml:"deltas"`
	// LocalSteps lists LocalSGD's H values.
	LocalSteps []int `yaml:"local_steps"`
	// Family, for sync, names the flush schedule (a pipeline family with
	// one stage per rank: gpipe, 1f1b, zb-h1, zb-h2) whose timeline under
	// the spec's cost model times one iteration; default 1f1b. For the
	// asynchronous methods (optim.ReplayAsync) it names the table they replay,
	// an update after every weight-gradient backward (any family with one
	// stage per rank, e.g. 1f1b or zb-h1); default pipedream, PipeDream's
	// asynchronous grid.
	Family string `yaml:"kind"`
	// Microbatches, for sync, is M, the number of microbatches whose
	// gradients one iteration averages (train's --microbatches); 0 means
	// S, the run's stage count.
	Microbatches int `yaml:"microbatches"`
	// Optimizer is the per-stage optimizer (default sgd): a name, or a
	// mapping with name and its parameters.
	Optimizer OptimizerSpec `yaml:"optimizer"`
	// Accumulate, for 2bw, is A, the microbatches per update (0: S).
	Accumulate int `yaml:"accumulate"`
	// PipeMareWarmup and PipeMareDecay, for pipemare, are T (0: the run's
	// updates per stage) and D, the EMA factor of δ (default
	// optim.DefaultPipeMareDecay).
	PipeMareWarmup int      `yaml:"pipemare_warmup"`
	PipeMareDecay  *float64 `yaml:"pipemare_decay"`
	// DCLambda, for dc, is λ (default optim.DefaultDCLambda); for dc-a,
	// DC-ASGD-a, λ0 (default optim.DefaultDCALambda).
	DCLambda *float64 `yaml:"dc_lambda"`
	// EFLambda, for ef, is λ of the error feedback (default
	// optim.DefaultEFLambda); ef takes Accumulate as 2bw does.
	EFLambda *float64 `yaml:"ef_lambda"`
}

// OptimizerSpec is a method's per-stage optimizer as a spec writes it: a
// name (optimizer: adam) or a mapping (optimizer: {name: adam, beta2:
// 0.99}). Unset parameters take the command line's defaults (momentum 0.9,
// β1 0.9, β2 0.999, ε 1e-8, AdamW's weight decay 0.01; Lion's β2 0.99 and
// Muon's momentum 0.95, both with weight decay 0, as their authors'
// code; Muon's scale original).
type OptimizerSpec struct {
	Name        string   `yaml:"name"`
	Momentum    *float64 `yaml:"momentum"`
	Beta1       *float64 `yaml:"beta1"`
	Beta2       *float64 `yaml:"beta2"`
	Eps         *float64 `yaml:"eps"`
	WeightDecay *float64 `yaml:"weight_decay"`
	MuonScale   string   `yaml:"muon_scale"`
	LRSchedule  string   `yaml:"lr_schedule"`
	Warmup      int      `yaml:"warmup"`
}

// optimizerFields decodes an optimizer's mapping: OptimizerSpec without
// its UnmarshalYAML, the type unknown keys of an optimizer are reported
// under (spec_keys.go).
type optimizerFields OptimizerSpec

// UnmarshalYAML reads an optimizer given by name or as a mapping. A
// node's Decode does not refuse unknown keys as the spec's decoder does,
// so the mapping's keys are checked here, and an unknown one reported as
// the decoder reports one.
func (o *OptimizerSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*o = OptimizerSpec{Name: n.Value}
		return nil
	}
	if n.Kind == yaml.MappingNode {
		t := reflect.TypeFor[optimizerFields]()
		known := keysOf(t)
		var unknown []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(known, k.Value) {
				unknown = append(unknown, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, t))
			}
		}
		if len(unknown) > 0 {
			return &yaml.TypeError{Errors: unknown}
		}
	}
	return n.Decode((*optimizerFields)(o))
}

// Settings returns the optimizer with the defaults filled in.
func (o OptimizerSpec) Settings() optim.Optimizer {
	or := func(p *float64, d float64) float64 {
		if p == nil {
			return d
		}
		return *p
	}
	name := o.Name
	if name == "" {
		name = string(optim.SGD)
	}
	out := optim.Optimizer{Algorithm: optim.Algorithm(name), Schedule: optim.Schedule(o.LRSchedule), Warmup: o.Warmup}
	switch out.Algorithm {
	case optim.Momentum, optim.Nesterov:
		out.Momentum = or(o.Momentum, 0.9)
	case optim.Adam, optim.AdamW:
		out.Beta1, out.Beta2, out.Eps = or(o.Beta1, 0.9), or(o.Beta2, 0.999), or(o.Eps, 1e-8)
		if out.Algorithm == optim.AdamW {
			out.WeightDecay = or(o.WeightDecay, 0.01)
		}
	case optim.Lion:
		out.Beta1, out.Beta2, out.WeightDecay = or(o.Beta1, 0.9), or(o.Beta2, 0.99), or(o.WeightDecay, 0)
	case optim.Muon:
		out.Momentum = or(o.Momentum, optim.DefaultMuonMomentum)
		out.Beta1, out.Beta2, out.Eps = or(o.Beta1, 0.9), or(o.Beta2, 0.999), or(o.Eps, 1e-8)
		out.WeightDecay = or(o.WeightDecay, 0)
		out.MuonScale = optim.MuonScale(cmp.Or(o.MuonScale, string(optim.MuonOriginal)))
	}
	return out
}

// Grid is a step-size grid: explicit Values, or powers of two 2^Pow2[0]
// .. 2^Pow2[1].
type Grid struct {
	Values []float64 `yaml:"values"`
	Pow2   []int     `yaml:"pow2"`
}

// Points returns the grid's step sizes in the order the spec defines them.
func (g Grid) Points() []float64 {
	if len(g.Pow2) == 2 {
		return optim.PowersOfTwo(g.Pow2[0], g.Pow2[1])
	}
	return append([]float64(nil), g.Values...)
}

// Delta is RPD's delay bound: a number, or Paper for ⌊S² - S/2⌋; or,
// with Model set, a delay model measured on PipeDream's timeline
// (results.DelayPipeDreamMean, results.DelayPipeDreamProfile) whose bound
// the measurement gives.
type Delta struct {
	Value int
	Paper bool
	Model string
}

// UnmarshalYAML reads a delta bound: an integer, the word "paper", or the
// name of a measured delay model.
func (d *Delta) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "paper" {
		*d = Delta{Paper: true}
		return nil
	}
	if n.Kind == yaml.ScalarNode && slices.Contains(MeasuredDelayModels, n.Value) {
		*d = Delta{Model: n.Value}
		return nil
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: delta %q is neither an integer, \"paper\" nor a measured delay model (%s)", n.Line, n.Value, strings.Join(MeasuredDelayModels, ", "))
	}
	*d = Delta{Value: v}
	return nil
}

// At returns the bound for s stages: for Paper, ⌊S² - S/2⌋, the largest
// steady-state PipeDream delay and the paper's δ (optim.DefaultDelta).
func (d Delta) At(s int) int {
	if d.Paper {
		return optim.DefaultDelta(s)
	}
	return d.Value
}

// CostSpec is the timing model of the runs.
type CostSpec struct {
	// CostModel is unit (every op one step) or gpu (the spec key
	// cost.cost_model; cost.model until issue 14).
	CostModel string `yaml:"cost_model"`
	// Preset, GPU and Link name the GPU model's model, device and link
	// presets (pipeline/cost); Preset is the spec key cost.model (the
	// command line's --model; cost.preset until issue 14).
	Preset string `yaml:"model"`
	GPU    string `yaml:"gpu"`
	Link   string `yaml:"link"`
	// ModelConfig is a HuggingFace config.json to build the model from
	// instead of Preset (cost.ReadHFConfig); a relative path is taken from
	// the spec file's directory.
	ModelConfig string `yaml:"model_config"`
	// Hardware is a hardware file (cost.ReadHardware) to take the GPU and
	// the links from instead of GPU and Link, a relative path likewise.
	Hardware string `yaml:"hardware"`
	// modelConfigPath and hardwarePath are ModelConfig and Hardware as the
	// spec's reader resolved them.
	modelConfigPath, hardwarePath string
	// Microbatch and Sequence size one microbatch of the timed model:
	// samples and tokens per sample (defaults 1 and 2048).
	Microbatch int `yaml:"microbatch_size"`
	Sequence   int `yaml:"seq_len"`
	// FlashAttention prices attention as FlashAttention runs it
	// (cost.GPUConfig.FlashAttention).
	FlashAttention bool `yaml:"flash_attention"`
	// ExpertParallel spreads the routed experts of MoE layers over this
	// many GPUs (cost.ExpertParallelOn: nodes of 8 on NVLink, InfiniBand
	// between), the command line's --expert-parallel; 0 or 1 is none.
	ExpertParallel int `yaml:"expert_parallel"`
	// Efficiency is the achieved share of the GPU's peak in (0, 1], the
	// command line's --efficiency; 0 takes the hardware file's, or
	// cost.DefaultEfficiency.
	Efficiency float64 `yaml:"efficiency"`
	// Explicit, with CostModel "explicit", is one rank's share of the
	// model's times and one transfer's (cost.ForRankShare); Measured, with
	// CostModel "measured", measured per-stage times (cost.Measured).
	// Neither has a spec key: the command line's --fwd ... and --costs,
	// --profile set them.
	Explicit ExplicitCosts  `yaml:"-"`
	Measured *cost.Measured `yaml:"-"`
	// The cluster around each stage (cost.Parallelism), the command
	// line's flags of the same names: TP tensor-parallel GPUs per stage
	// (--tp) and DP data-parallel replicas (--dp), each 1 unless given;
	// Recompute none (the default), selective or full; SequenceParallel,
	// DistributedOptimizer and OverlapGradReduce as Megatron-LM's options.
	// GPUsPerNode and NodeLink put the GPUs into nodes of GPUsPerNode
	// joined inside by the NodeLink preset, Link then joining the nodes;
	// the two come together or not at all.
	TP                   int    `yaml:"tp"`
	DP                   int    `yaml:"dp"`
	Recompute            string `yaml:"recompute"`
	SequenceParallel     bool   `yaml:"sequence_parallel"`
	DistributedOptimizer bool   `yaml:"distributed_optimizer"`
	OverlapGradReduce    bool   `yaml:"overlap_grad_reduce"`
	GPUsPerNode          int    `yaml:"gpus_per_node"`
	NodeLink             string `yaml:"node_link"`
}

// ExplicitCosts are T_F, T_B and T_W of one rank's share of the model and
// the time of one transfer.
type ExplicitCosts struct{ Fwd, Bwd, WGrad, Comm float64 }

// SpecError is a spec that cannot run: the key and the line it is on.
type SpecError struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Is makes a SpecError match ErrBadInput.
func (e *SpecError) Is(target error) bool { return target == ErrBadInput }

func (e *SpecError) Error() string {
	file := e.File
	if file == "" {
		file = "spec"
	}
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", file, e.Line, e.Key, e.Msg)
}

// ReadSpecFile reads and validates a spec file.
func ReadSpecFile(path string) (*Spec, error) {
	b, err := inputfile.ReadFile(path, "spec", inputfile.Spec)
	if err != nil {
		return nil, badInputf("%v", err) // a spec that cannot be read, or over the cap, is bad input
	}
	return ParseSpec(path, b)
}

// ParseSpec decodes a YAML spec strictly (an unknown key is an error
// naming it and its line) and validates it. file names the source in
// errors.
func ParseSpec(file string, src []byte) (*Spec, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, yamlError(file, syntaxErrorLine(src, err))
	}
	// The integers are checked once the decoder has accepted the tree's
	// aliases (it refuses excessive aliasing, which the walk would
	// follow), or when it found values of the wrong type, where the check
	// says which key.
	checkInts := func() error {
		err := checkIntegers(validator{root: &root}, &root, reflect.TypeFor[Spec](), nil)
		if err != nil {
			err.(*SpecError).File = file
		}
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, badInputf("%s: empty spec", file)
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			if ierr := checkInts(); ierr != nil {
				return nil, ierr
			}
		}
		return nil, yamlError(file, err)
	}
	if err := checkInts(); err != nil {
		return nil, err
	}
	s.Cost.resolve(file)
	if err := s.validate(&root); err != nil {
		if se, ok := err.(*SpecError); ok {
			se.File = file
		}
		return nil, err
	}
	return &s, nil
}

// unknownField matches yaml.v3's message for a key that no field takes.
var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)

// yamlError rewrites yaml.v3's decoding and syntax errors as "file:line: message",
// an unknown key as "unknown key", with the key it was probably meant to
// be (unknownKeyHint).
func yamlError(file string, err error) error {
	errs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		errs = te.Errors
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		e = strings.TrimPrefix(e, "yaml: ")
		if m := unknownField.FindStringSubmatch(e); m != nil {
			msgs[i] = fmt.Sprintf("%s:%s: unknown key %q%s", file, m[1], m[2], unknownKeyHint(m[3], m[2]))
			continue
		}
		if line, rest, ok := strings.Cut(strings.TrimPrefix(e, "line "), ": "); ok {
			msgs[i] = fmt.Sprintf("%s:%s: %s", file, line, rest)
			continue
		}
		msgs[i] = file + ": " + e
	}
	return badInputf("%s", strings.Join(msgs, "; "))
}

// Validate fills in the defaults of a spec built in Go and checks it, as
// ParseSpec does for a file; its errors carry no line numbers.
func (s *Spec) Validate() error { return s.validate(nil) }
