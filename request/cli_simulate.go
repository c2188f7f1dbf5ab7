package request

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// SimulateOutput is what a simulate command line asks to be printed and
// written beyond its request: --format, and the files of --trace and
// --gantt; Unit is the cost model's unit of time, for the chart's axis.
type SimulateOutput struct {
	Format, Trace, Gantt, Unit string
}

const simulateDescription = `
Times one schedule with the event simulator: a generated family (--kind,
--ranks, --microbatches, --chunks) or a PyTorch schedule CSV (--schedule),
compute_only or with SEND/RECV (which are then timed as written).

Costs: --cost-model unit (every compute action one step, messages free),
--cost-model lockstep (PyTorch's unit-time lockstep check of the lowered
table, read as a grid), explicit times (--fwd, --bwd, --wgrad, --comm), or the GPU timing
model (--model, --gpu, --link; "pipelab presets" lists them; --model-config
reads the model from a HuggingFace config.json instead). Explicit and
GPU times are those of one rank's share of the model: a family with V chunks
per rank spends T/V per chunk, while Chimera's two stages per rank are
replicas of one share and each costs T; --comm is per message.

--policy ready lets each rank run, whenever it is free, the best-ranked of
its ready actions (--hint table, bf or bfw) without holding more
activations than the fixed order does (--cap N sets that cap, --cap +K
raises each rank's by K).
With the table hint a rank first waits for its row's next action as long
as the fixed order would (--patience plan, the default), so that without
variability ready and fixed agree; --patience none runs the best-ranked
ready action at once, as the RRFP runtime does.
Each rank's idle time is split into bubble (nothing it could run) and comm
wait (an input produced but still in flight); the text says which is which
under the rank table, and docs/validation.md shows both on published
configurations.
--jitter, --comm-jitter and --straggler add seeded variability; with
--iterations K the makespan's mean and spread over K iterations are
reported too. --trace writes a Chrome trace, --gantt a PNG or SVG chart.`

type simulateFlags struct {
	shape              ShapeFlags
	schedule           string
	costs              CostFlags
	policy, hint       string
	patience           string
	activationCap      capFlag
	jitter, commJitter float64
	stragglers         map[int]float64
	iterations         int
	postValidation     bool
	seed               uint64
	output             OutputFlag
	trace, gantt       string
}

// DecodeSimulate decodes simulate's flags into the library's request (the
// table generated or read, its pricing and the simulator's options), with
// the flags, whose output flags say what to print and write. A flag
// error's usage goes to stderr.
func DecodeSimulate(args []string, stderr io.Writer) (SimulateRequest, SimulateOutput, error) {
	req, f, err := decodeSimulate(args, stderr)
	if err != nil {
		return req, SimulateOutput{}, err
	}
	return req, SimulateOutput{Format: f.output.Format, Trace: f.trace, Gantt: f.gantt, Unit: f.costs.Unit()}, nil
}

// decodeSimulate is DecodeSimulate with the flags.
func decodeSimulate(args []string, stderr io.Writer) (SimulateRequest, *simulateFlags, error) {
	fs := NewFlags("simulate", "(--kind KIND --ranks P --microbatches M [--chunks V] | --schedule FILE.csv) [cost flags] [--policy fixed|ready] [flags]",
		simulateDescription, stderr)
	f := simulateFlags{stragglers: map[int]float64{}}
	f.shape.Register(fs)
	fs.StringVar(&f.schedule, "schedule", "", "a PyTorch schedule CSV instead of --kind")
	f.costs.Register(fs)
	fs.Func("partition", "with --model: layers of each model part, comma-separated in model order (as pipelab tune reports it; default: an even cut)", f.setPartition)
	fs.StringVar(&f.policy, "policy", "fixed", "execution policy: fixed (row order) or ready (best-ranked ready action)")
	fs.StringVar(&f.hint, "hint", "table", "ready policy's ranking: table, bf (backward first) or bfw (I, then F, then W)")
	fs.StringVar(&f.patience, "patience", "plan", "ready policy, table hint: wait for the row's next action as long as the fixed order would (plan) or not at all (none)")
	fs.Var(&f.activationCap, "cap", "ready policy: activations a rank may hold, N (0: its peak under the fixed order), or +K above that peak")
	fs.Float64Var(&f.jitter, "jitter", 0, "σ of the log-normal (mean 1) noise on every compute action")
	fs.Float64Var(&f.commJitter, "comm-jitter", 0, "σ of the log-normal (mean 1) noise on every message")
	fs.Func("straggler", "RANK:FACTOR, a rank whose compute is FACTOR times slower (repeatable)", f.addStraggler)
	fs.IntVar(&f.iterations, "iterations", 1, "iterations K to simulate (mean and spread of the makespan when K > 1)")
	fs.BoolVar(&f.postValidation, "post-validation", false, "iterations overlap, as under the Zero Bubble runtime's optimizer post-validation: zb-auto is chosen by its longest rank span, and with --model the step is that span plus its rank's optimizer step, not the makespan plus the slowest step")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the variability's random streams (0, as in train and specs)")
	f.output.Register(fs)
	fs.StringVar(&f.trace, "trace", "", "write the timeline as a Chrome trace (JSON) to this file")
	fs.StringVar(&f.gantt, "gantt", "", "draw the timeline to this .png or .svg")
	MarkFiles(fs, ReadsFile, nil, "schedule")
	MarkFiles(fs, WritesFile, nil, "trace", "gantt")
	if err := ParseFlags(fs, args); err != nil {
		return SimulateRequest{}, nil, err
	}
	f.costs.Set = SetFlags(fs)
	f.shape.Set = f.costs.Set
	opt, err := f.check(fs.Args())
	if err != nil {
		return SimulateRequest{}, nil, FlagProblem(fs, stderr, "simulate", err)
	}
	f.shape.ZBBySpan = f.postValidation
	t, err := f.table()
	if err != nil {
		return SimulateRequest{}, nil, err
	}
	if err := f.costs.Measured.Fits(t); err != nil {
		return SimulateRequest{}, nil, FlagProblem(fs, stderr, "simulate", err)
	}
	req, err := f.request(t, opt)
	return req, &f, err
}

// setPartition parses --partition L0,L1,...
func (f *simulateFlags) setPartition(v string) error {
	var part []int
	for _, field := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return fmt.Errorf("want positive layer counts separated by commas, got %q", v)
		}
		part = append(part, n)
	}
	f.costs.Partition = part
	return nil
}

// addStraggler parses one --straggler RANK:FACTOR.
func (f *simulateFlags) addStraggler(v string) error {
	rank, factor, ok := strings.Cut(v, ":")
	r, err1 := strconv.Atoi(rank)
	x, err2 := strconv.ParseFloat(factor, 64)
	if !ok || err1 != nil || err2 != nil || r < 0 || !(x > 0) {
		return fmt.Errorf("want RANK:FACTOR with RANK ≥ 0 and FACTOR > 0, got %q", v)
	}
	f.stragglers[r] = x
	return nil
}

// check names the flag that is wrong and returns the simulation options.
func (f *simulateFlags) check(rest []string) (sim.Options, error) {
	var opt sim.Options
	set := f.costs.Set
	if err := NoArguments(rest); err != nil {
		return opt, err
	}
	switch {
	case f.schedule == "" && f.shape.Kind == "":
		return opt, fmt.Errorf("give --kind (with --ranks and --microbatches) or --schedule FILE.csv")
	case f.schedule != "" && (f.shape.Kind != "" || set["ranks"] || set["microbatches"] || set["total-microbatches"] || set["chunks"]):
		return opt, fmt.Errorf("--schedule reads the shape from the file: drop --kind, --ranks, --microbatches and --chunks")
	}
	if f.shape.Kind != "" {
		if err := f.shape.ParseKind(set); err != nil {
			return opt, err
		}
		if err := f.shape.Check(); err != nil {
			return opt, err
		}
	}
	if err := f.shape.CheckMaxActivations(set); err != nil {
		return opt, err
	}
	if err := AtLeast("iterations", f.iterations, 1); err != nil {
		return opt, err
	}
	if err := FirstError(InRange("jitter", f.jitter, 0, sim.MaxSigma), InRange("comm-jitter", f.commJitter, 0, sim.MaxSigma)); err != nil {
		return opt, err
	}
	if err := f.output.Check(); err != nil {
		return opt, err
	}
	if err := f.costs.Check(); err != nil {
		return opt, err
	}
	if f.costs.Partition != nil && f.costs.Kind() != "gpu" {
		return opt, fmt.Errorf("--partition cuts the model of --model: give --model too")
	}
	if f.postValidation && f.costs.Kind() != "gpu" && f.shape.Kind != tune.ZBAutoFamily {
		return opt, fmt.Errorf("--post-validation times the step of --model's GPUs, or chooses --kind zb-auto by its span: give --model or --kind zb-auto")
	}
	var err error
	if opt.Policy, err = sim.ParsePolicy(f.policy); err != nil {
		return opt, fmt.Errorf("--policy: %w", err)
	}
	if opt.Hint, err = sim.ParseHint(f.hint); err != nil {
		return opt, fmt.Errorf("--hint: %w", err)
	}
	if opt.Patience, err = sim.ParsePatience(f.patience); err != nil {
		return opt, fmt.Errorf("--patience: %w", err)
	}
	if opt.Policy == sim.Fixed && (set["hint"] || set["cap"] || set["patience"]) {
		return opt, fmt.Errorf("--hint, --cap and --patience apply to --policy ready only")
	}
	if set["patience"] && opt.Hint != sim.TableOrder {
		return opt, fmt.Errorf("--patience applies to --hint table only: the %v hint ranks by kind and has no plan to wait for", opt.Hint)
	}
	opt.ActivationCap, opt.ActivationSlack = f.activationCap.cap, f.activationCap.slack
	opt.Variability = sim.Variability{Seed: f.seed, Sigma: f.jitter, CommSigma: f.commJitter, Stragglers: f.stragglers}
	if f.costs.Kind() == "lockstep" && (opt.Policy != sim.Fixed || !opt.Variability.IsZero() || f.iterations > 1) {
		return opt, fmt.Errorf("--cost-model lockstep is PyTorch's fixed unit-time check: no --policy ready, variability or --iterations")
	}
	if ext := strings.ToLower(filepath.Ext(f.gantt)); f.gantt != "" && ext != ".png" && ext != ".svg" {
		return opt, fmt.Errorf("--gantt must end in .png or .svg, got %q", f.gantt)
	}
	return opt, nil
}

// table generates or reads the schedule.
func (f *simulateFlags) table() (*pipeline.Table, error) {
	if f.schedule == "" {
		f.shape.CellBytes = SimulateCellBytes
		return f.shape.GenerateFor(&f.costs)
	}
	return ReadScheduleFile(f.schedule)
}

// request is the simulation the flags ask for, of table t.
func (f *simulateFlags) request(t *pipeline.Table, opt sim.Options) (SimulateRequest, error) {
	req := SimulateRequest{Kind: f.shape.Kind, Schedule: f.schedule, Table: t,
		Lockstep: f.costs.Kind() == "lockstep", Options: opt, Iterations: f.iterations, PostValidation: f.postValidation}
	if req.Lockstep {
		return req, nil
	}
	pr, err := f.costs.PricingFor(t)
	if err != nil {
		return req, err
	}
	req.Pricing = pr.request()
	return req, nil
}

// WriteText prints the report as "pipelab simulate" does without
// --format json.
func (rep SimulateReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "schedule:     %s (%d ranks, %d stages, %d microbatches)\n", TableName(rep.Kind, rep.Schedule), rep.NumRanks, rep.Stages, rep.Microbatches)
	fmt.Fprintf(&b, "cost:         %s\n", rep.Cost)
	policy := rep.Policy
	if rep.Hint != "" {
		policy += ", hint " + rep.Hint
	}
	if rep.Patience != "" {
		policy += ", patience " + rep.Patience
	}
	fmt.Fprintf(&b, "policy:       %s\n", policy)
	if it := rep.Iterations; it != nil {
		fmt.Fprintf(&b, "makespan:     %.6g (iteration 1 of %d; the rank table describes it too)\n", rep.Makespan, it.Count)
		fmt.Fprintf(&b, "iterations:   %d (seed %d): mean %.6g, spread %.3g\n", it.Count, it.Seed, it.Mean, it.Spread)
	} else {
		fmt.Fprintf(&b, "makespan:     %.6g\n", rep.Makespan)
	}
	if rep.PostValidation && rep.IterationSeconds == 0 {
		b.WriteString("post-validation: iterations overlap; zb-auto chosen by its longest rank span (no step priced without --model)\n")
	} else if rep.PostValidation {
		fmt.Fprintf(&b, "iteration:    %.6g (post-validation: the longest rank span, then that rank's gradient sync and optimizer step)\n", rep.IterationSeconds)
		fmt.Fprintf(&b, "model FLOP/s: %.4g per GPU on %d GPUs (Narayanan et al. eq. 3, a recomputed forward counted)\n", rep.ModelFLOPsPerGPU, rep.GPUs)
	} else if rep.Cluster {
		fmt.Fprintf(&b, "iteration:    %.6g (makespan, then gradient sync and optimizer step)\n", rep.IterationSeconds)
		fmt.Fprintf(&b, "model FLOP/s: %.4g per GPU on %d GPUs (Narayanan et al. eq. 3, a recomputed forward counted)\n", rep.ModelFLOPsPerGPU, rep.GPUs)
	}
	fmt.Fprintf(&b, "bubble ratio: %.4f\n", rep.BubbleRatio)
	if rep.Steps != nil {
		fmt.Fprintf(&b, "lockstep steps: %d\n", *rep.Steps)
	} else {
		fmt.Fprintf(&b, "lockstep steps: %s\n", rep.StepsNote)
	}
	fmt.Fprintf(&b, "messages:     %d", rep.Messages)
	if rep.CommBytes > 0 {
		fmt.Fprintf(&b, " (%.4g bytes)", rep.CommBytes)
	}
	b.WriteString("\n\nrank        busy        idle      bubble   comm wait  peak act (M_B)  peak memory\n")
	over := 0
	for _, r := range rep.Ranks {
		fmt.Fprintf(&b, "%4d  %10.6g  %10.6g  %10.6g  %10.6g  %14.4g  %11s", r.Rank, r.Busy, r.Idle, r.Bubble, r.CommWait, r.PeakActivations, GB(r.PeakMemoryBytes))
		if r.OverMemory {
			b.WriteString("  over the GPU's memory")
			over++
		}
		b.WriteString("\n")
	}
	if over > 0 {
		fmt.Fprintf(&b, "\n%d of %d ranks need more than the GPU's %s.\n", over, len(rep.Ranks), GB(rep.MemoryLimit))
	}
	b.WriteString(peakUnitNote)
	b.WriteString(idleSplitNote)
	_, err := io.WriteString(w, b.String())
	return err
}

// peakUnitNote names the unit of the peak activations column.
const peakUnitNote = `
peak act: most activations a rank held, in M_B, microbatches of a rank's
share of the model (a chunk of V chunks per rank holds 1/V).
`

// idleSplitNote says, under the rank table, which part of the idle time is
// which (sim.RankStat.CommWait).
const idleSplitNote = `
idle = bubble + comm wait. comm wait: idle time spent waiting for a message,
after the input's producer had finished and before the input arrived (zero
when messages are free). bubble: the rest of the idle time, when the
schedule left the rank nothing it could run (warm-up, cool-down, waiting
for a producer's compute).
`

// gb formats bytes in GB (10⁹ bytes, the unit of the GPU presets'
// datasheet memory and of a size such as --gpu-memory 80GB), or "-" for
// none.
func GB(bytes float64) string {
	if bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f GB", bytes/1e9)
}
