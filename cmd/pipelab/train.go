package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"pipelab/objectives"
	"pipelab/objectives/charlm"
	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

func init() {
	register(command{
		name:    "train",
		summary: "replay a schedule with real optimizer math on an objective and print the loss curve",
		run:     runTrain,
	})
}

const trainSynopsis = `--objective quadratic|tridiagonal|logistic|lm --method pd|rpd|localsgd|sync
       --stages S (--microbatches N | --time-budget T) --step-size G [flags]`

const trainDescription = `
Optimizes an objective with one of the PipeDream convergence paper's methods
(docs/reference.md §1) and prints the loss curve.

Methods: pd replays asynchronous PipeDream's unit-time timeline with weight
stashing; localsgd replays the LocalSGD timeline (--replicas R, default S;
--local-steps H, default 5); sync runs synchronous SGD on a 1F1B flush of
--flush-microbatches M (default S) microbatches per iteration; rpd is
randomized PipeDream with K = N·S iterations and delays drawn by --delays:
uniform (δ = --delta, default ⌊S² - S/2⌋), exact (PipeDream's own delays and
op order, which reproduces pd exactly) or a trace file of lines
"stage,batch,d_0,...,d_{S-1}".

The run length is --microbatches N, or --time-budget T: the smallest N whose
timeline reaches T unit steps (§1.6; rpd takes pd's N); sync runs whole
iterations, rounding N or T up. The overshoot past T is reported.

Objectives and their defaults (§1.7): quadratic (n 2000, d 512, batch 100),
tridiagonal (n 600, d 512, batch 5, μ 0.01), logistic (n 600, d 512, batch
10, --l2 1e-4, --noise 0.5), generated from --seed, or read from --data X.csv
--labels y.csv; lm, the character language model (S ≥ 3, embed 64, 4 heads,
sequence 32, batch 16, default step 0.0625) on --corpus FILE or n characters
of the default Markov corpus (n default 100000). The loss is logged every
--log-every block updates (default: 100 points); rpd has no timeline, so its
time is its iteration count.`

// trainFlags holds the flags of "pipelab train".
type trainFlags struct {
	objective, method    string
	stages, microbatches int
	timeBudget, stepSize float64
	batchSize, n, d      int
	data, labels, corpus string
	l2, noise            float64
	delta                int
	delays               string
	replicas, localSteps int
	flushMicrobatches    int
	seed                 uint64
	logEvery             int
	output               outputFlag
	set                  map[string]bool
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.objective, "objective", "", "quadratic, tridiagonal, logistic or lm")
	fs.StringVar(&f.method, "method", "", "pd, rpd, localsgd or sync")
	fs.IntVar(&f.stages, "stages", 0, "pipeline stages S")
	fs.IntVar(&f.microbatches, "microbatches", 0, "microbatches N the run consumes")
	fs.Float64Var(&f.timeBudget, "time-budget", 0, "simulated time budget T in unit steps (instead of --microbatches)")
	fs.Float64Var(&f.stepSize, "step-size", 0, "step size γ (required except for lm, default 0.0625)")
	fs.IntVar(&f.batchSize, "batch-size", 0, "rows (lm: sequences) per batch (default per objective)")
	fs.IntVar(&f.n, "n", 0, "rows of generated data (lm: characters of the default corpus)")
	fs.IntVar(&f.d, "d", 0, "parameters of generated data (default 512)")
	fs.StringVar(&f.data, "data", "", "X.csv: one example per line, comma-separated")
	fs.StringVar(&f.labels, "labels", "", "y.csv: one target per line")
	fs.StringVar(&f.corpus, "corpus", "", "UTF-8 text file for lm")
	fs.Float64Var(&f.l2, "l2", objectives.DefaultL2, "logistic L2 weight λ")
	fs.Float64Var(&f.noise, "noise", objectives.DefaultNoise, "logistic additive gradient noise σ")
	fs.IntVar(&f.delta, "delta", -1, "rpd uniform delay bound δ (default ⌊S² - S/2⌋)")
	fs.StringVar(&f.delays, "delays", "uniform", "rpd delays: uniform, exact or a trace FILE")
	fs.IntVar(&f.replicas, "replicas", 0, "localsgd replicas R (default S)")
	fs.IntVar(&f.localSteps, "local-steps", 5, "localsgd local steps H between averagings")
	fs.IntVar(&f.flushMicrobatches, "flush-microbatches", 0, "sync microbatches per iteration (default S)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the data and of every random stream of the run")
	fs.IntVar(&f.logEvery, "log-every", 0, "block updates between logged losses (default: 100 points)")
	f.output.register(fs)
}

// check validates the flags and fills the objective's defaults, naming
// the flag that is wrong.
func (f *trainFlags) check(rest []string) error {
	if err := noArguments(rest); err != nil {
		return err
	}
	switch {
	case !oneOf(f.objective, "quadratic", "tridiagonal", "logistic", "lm"):
		return fmt.Errorf("--objective must be quadratic, tridiagonal, logistic or lm, got %q", f.objective)
	case !oneOf(f.method, "pd", "rpd", "localsgd", "sync"):
		return fmt.Errorf("--method must be pd, rpd, localsgd or sync, got %q", f.method)
	case f.stages < 1:
		return atLeast("stages", f.stages, 1)
	case f.set["microbatches"] == f.set["time-budget"]:
		return errors.New("give exactly one of --microbatches and --time-budget")
	case f.set["microbatches"] && f.microbatches < 1:
		return atLeast("microbatches", f.microbatches, 1)
	case f.set["time-budget"] && !(f.timeBudget > 0 && f.timeBudget < math.Inf(1)):
		return fmt.Errorf("--time-budget must be positive, got %g", f.timeBudget)
	case (f.data == "") != (f.labels == ""):
		return errors.New("--data and --labels go together")
	case f.data != "" && (f.set["n"] || f.set["d"] || f.objective == "lm"):
		return errors.New("--data replaces --n and --d, and lm reads --corpus instead")
	case f.objective != "logistic" && (f.set["l2"] || f.set["noise"]):
		return errors.New("--l2 and --noise apply to the logistic objective only")
	case f.objective != "lm" && f.corpus != "":
		return errors.New("--corpus applies to lm only")
	}
	if err := f.output.check(); err != nil {
		return err
	}
	if f.logEvery < 0 || f.batchSize < 0 || f.n < 0 || f.d < 0 || f.replicas < 0 || f.localSteps < 1 || f.flushMicrobatches < 0 {
		return errors.New("--log-every, --batch-size, --n, --d, --replicas and --flush-microbatches must not be negative, --local-steps at least 1")
	}
	defaults := map[string][3]int{ // n, d, batch (docs/reference.md §1.7)
		"quadratic": {2000, 512, 100}, "tridiagonal": {600, 512, 5}, "logistic": {600, 512, 10}, "lm": {100000, 0, 16},
	}[f.objective]
	f.n, f.d, f.batchSize = orDefault(f.n, defaults[0]), orDefault(f.d, defaults[1]), orDefault(f.batchSize, defaults[2])
	if f.objective == "lm" && !f.set["step-size"] {
		f.stepSize = 0.0625
	}
	if !(f.stepSize > 0) {
		return fmt.Errorf("--step-size must be positive, got %g", f.stepSize)
	}
	if f.delta == -1 {
		f.delta = optim.DefaultDelta(f.stages)
	}
	if f.delta < 0 {
		return fmt.Errorf("--delta must not be negative, got %d", f.delta)
	}
	f.replicas = orDefault(f.replicas, f.stages)
	f.flushMicrobatches = orDefault(f.flushMicrobatches, f.stages)
	return nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// trainReport is what "pipelab train" prints.
type trainReport struct {
	Objective    string      `json:"objective"`
	Method       string      `json:"method"`
	Stages       int         `json:"stages"`
	Microbatches int         `json:"microbatches"`
	TimeBudget   float64     `json:"time_budget,omitempty"`
	Overshoot    float64     `json:"overshoot"`
	TimeSteps    float64     `json:"time_steps"`
	BlockUpdates int         `json:"block_updates"`
	StepSize     float64     `json:"step_size"`
	Seed         uint64      `json:"seed"`
	FinalLoss    finiteOrNil `json:"final_loss"`
	Diverged     bool        `json:"diverged"`
	Curve        []curvePt   `json:"curve"`
}

type curvePt struct {
	Time         float64     `json:"time"`
	BlockUpdates int         `json:"block_updates"`
	Loss         finiteOrNil `json:"loss"`
}

// finiteOrNil is a float that JSON writes as null when it is not finite
// (a diverged loss), which JSON numbers cannot hold.
type finiteOrNil float64

func (v finiteOrNil) MarshalJSON() ([]byte, error) {
	if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", trainSynopsis, trainDescription, stderr)
	var f trainFlags
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if err := f.check(fs.Args()); err != nil {
		return flagProblem(fs, stderr, "train", err)
	}
	method, rep, err := f.plan()
	if err != nil {
		return err
	}
	if f.objective != "lm" && f.data == "" {
		if err := guardData(f.n, f.d); err != nil {
			return err
		}
	}
	obj, err := f.buildObjective()
	if err != nil {
		return err
	}
	res, err := optim.Run(obj, method, optim.Settings{StepSize: f.stepSize, Seed: f.seed, LogEvery: f.logEvery})
	if err != nil {
		return err
	}
	rep.TimeSteps, rep.BlockUpdates, rep.Microbatches = res.Time, res.BlockUpdates, res.Microbatches
	rep.FinalLoss, rep.Diverged = finiteOrNil(res.FinalLoss), res.Diverged
	if rep.TimeBudget > 0 && f.method != "rpd" {
		rep.Overshoot = res.Time - rep.TimeBudget
	}
	for _, r := range res.Records {
		rep.Curve = append(rep.Curve, curvePt{Time: r.Time, BlockUpdates: r.Updates, Loss: finiteOrNil(r.Loss)})
	}
	return f.output.write(stdout, rep, func() error { return writeTrainText(stdout, rep) })
}

// buildObjective makes the objective the flags name.
func (f *trainFlags) buildObjective() (objectives.Objective, error) {
	if f.objective == "lm" {
		text := []byte(nil)
		if f.corpus != "" {
			var err error
			if text, err = os.ReadFile(f.corpus); err != nil {
				return nil, err
			}
		} else {
			text, _ = charlm.DefaultCorpus(f.seed, f.n)
		}
		cfg := charlm.DefaultConfig()
		cfg.Stages, cfg.Batch, cfg.Seed = f.stages, f.batchSize, f.seed
		return charlm.New(cfg, text)
	}
	var data *objectives.Dataset
	var err error
	switch {
	case f.data != "":
		data, err = objectives.LoadCSV(f.data, f.labels)
	case f.objective == "quadratic":
		data, err = objectives.RandomQuadratic(f.n, f.d, f.seed)
	case f.objective == "tridiagonal":
		data, err = objectives.TridiagonalQuadratic(f.n, f.d, 0.01, f.seed)
	default:
		data, err = objectives.RandomLogistic(f.n, f.d, f.seed)
	}
	if err != nil {
		return nil, err
	}
	if f.objective == "logistic" {
		return objectives.NewLogistic(data, f.stages, f.batchSize, f.l2, f.noise)
	}
	return objectives.NewLeastSquares(data, f.stages, f.batchSize)
}

// plan builds the method and its timeline, matching the time budget if
// one was given.
func (f *trainFlags) plan() (optim.Method, trainReport, error) {
	rep := trainReport{Objective: f.objective, Method: f.method, Stages: f.stages, TimeBudget: f.timeBudget, StepSize: f.stepSize, Seed: f.seed}
	family, shape := "pipedream", pipeline.Shape{Ranks: f.stages}
	if f.method == "localsgd" {
		family, shape = "localsgd", pipeline.Shape{Ranks: f.stages, Replicas: f.replicas, LocalSteps: f.localSteps}
	}
	if f.method == "sync" {
		return f.planSync(rep)
	}
	n := f.microbatches
	if f.set["time-budget"] {
		m, err := optim.MatchBudget(f.timeBudget, optim.GridDuration(family, shape))
		if err != nil {
			return nil, rep, err
		}
		n = m.Microbatches
		if f.method == "rpd" {
			rep.Overshoot = m.Overshoot
		}
	}
	if f.method == "rpd" && f.delays != "exact" {
		m, err := f.planRPD(n)
		return m, rep, err
	}
	shape.Microbatches = n
	if err := guardShape(family, shape, replayCellBytes); err != nil {
		return nil, rep, err
	}
	tab, err := pipeline.Generate(family, shape)
	if err != nil {
		return nil, rep, err
	}
	tl := sim.FromGrid(tab)
	switch f.method {
	case "pd":
		return optim.PipeDream{Timeline: tl}, rep, nil
	case "localsgd":
		return optim.LocalSGD{Timeline: tl}, rep, nil
	}
	exact, err := optim.Delays(tl)
	return optim.RPD{Delays: exact}, rep, err
}

// planRPD returns RPD with uniform delays or a trace file, K = N·S.
func (f *trainFlags) planRPD(n int) (optim.Method, error) {
	if f.delays == "uniform" {
		return optim.RPD{Delays: optim.Uniform{Stages: f.stages, Delta: f.delta, Microbatches: n}}, nil
	}
	trace, err := optim.LoadDelayTrace(f.delays)
	if err != nil {
		return nil, err
	}
	if trace.Stages != f.stages {
		return nil, fmt.Errorf("%s: %d delays per line, but --stages is %d", f.delays, trace.Stages, f.stages)
	}
	return optim.RPD{Delays: trace, Iterations: n * f.stages}, nil
}

// planSync returns synchronous SGD on a 1F1B flush.
func (f *trainFlags) planSync(rep trainReport) (optim.Method, trainReport, error) {
	flush := pipeline.Shape{Ranks: f.stages, Microbatches: f.flushMicrobatches}
	if err := guardShape("1f1b", flush, replayCellBytes); err != nil {
		return nil, rep, err
	}
	tab, err := pipeline.Generate("1f1b", flush)
	if err != nil {
		return nil, rep, err
	}
	tl := sim.FromGrid(tab)
	iters := (f.microbatches + f.flushMicrobatches - 1) / f.flushMicrobatches
	if f.set["time-budget"] {
		period := sim.Makespan(tl)
		iters = int(math.Ceil(f.timeBudget / period))
	}
	return optim.Sync{Timeline: tl, Iterations: iters}, rep, nil
}

func writeTrainText(w io.Writer, rep trainReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "objective:     %s\nmethod:        %s\nstages:        %d\nmicrobatches:  %d\n", rep.Objective, rep.Method, rep.Stages, rep.Microbatches)
	if rep.Method == "rpd" {
		fmt.Fprintf(&b, "iterations:    %g", rep.TimeSteps)
		if rep.TimeBudget > 0 {
			fmt.Fprintf(&b, " (pd's N·S for budget %g, pd overshoot %g)", rep.TimeBudget, rep.Overshoot)
		}
	} else {
		fmt.Fprintf(&b, "time steps:    %g", rep.TimeSteps)
		if rep.TimeBudget > 0 {
			fmt.Fprintf(&b, " (budget %g, overshoot %g)", rep.TimeBudget, rep.Overshoot)
		}
	}
	fmt.Fprintf(&b, "\nblock updates: %d\nstep size:     %g\nfinal loss:    %.6g\ndiverged:      %v\ncurve:\n", rep.BlockUpdates, rep.StepSize, float64(rep.FinalLoss), rep.Diverged)
	fmt.Fprintf(&b, "  %10s %10s %14s\n", "time", "updates", "loss")
	for _, p := range rep.Curve {
		fmt.Fprintf(&b, "  %10g %10d %14.6g\n", p.Time, p.BlockUpdates, float64(p.Loss))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
