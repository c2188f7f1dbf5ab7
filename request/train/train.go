package train

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/request"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline/cost"
)

const Synopsis = `--objective quadratic|tridiagonal|logistic|charlm
       --method pipedream|pd-nostash|2bw|pipemare|predict|dc|dc-a|ef|rpd|localsgd|sync
       (--stages S [--kind KIND] | --schedule FILE.csv) (--total-microbatches N | --time-budget T)
       --step-size G [--optimizer sgd|momentum|nesterov|adam|adamw|lion|muon] [flags]`

const trainDescription = `
Optimizes an objective with a pipeline method and a per-stage optimizer and
prints the loss curve (docs/methods.md; docs/reference.md §1, §4).

Methods: pipedream replays asynchronous PipeDream with weight stashing; pd-nostash without stashing; 2bw accumulates --accumulate A
microbatches (default S) per update; pipemare reschedules the step by the
stage's delay and corrects the backward's read (--pipemare-warmup T,
--pipemare-decay D); predict reads predicted weights in the forward; dc
corrects the stale gradient by --dc-lambda λ (DC-ASGD; dc-a, its adaptive
form, divides λ0 = --dc-lambda, default 2, by the root of a running mean
square of the gradient); ef is 2bw (--accumulate A, default S; A = 1 is
pipedream) whose stages add --ef-lambda λ (default 1) times the difference
of their last two updates to each move (error feedback after the
one-step-delay paper, a rule inferred from its abstract: docs/methods.md);
localsgd replays the LocalSGD
timeline (--replicas R, default S; --local-steps H, default 5); sync runs
synchronous SGD on a flush of --microbatches M (default S)
microbatches per iteration; rpd is randomized PipeDream with K = N·S
iterations and delays drawn by --delays: uniform (δ = --delta, default
⌊S² - S/2⌋), exact (PipeDream's own delays and op order, which reproduces
pipedream exactly), pipedream-mean (uniform at PipeDream's mean delay),
pipedream-profile (PipeDream's per-stage delays, stage by stage; both as the
delay-profiles figure's) or a trace file of lines "stage,batch,d_0,...,d_{S-1}".

The table: by default the pipedream family (localsgd for localsgd, 1f1b for
sync) on S stages; --kind KIND generates any family instead (asynchronous
methods replay it with an update after every backward, sync as its flush),
and --schedule FILE.csv replays a PyTorch schedule CSV, whose shape it
takes (split backwards: I passes the gradient on, W lands the update). The
clock is unit time, or seconds under the GPU model (--model, --gpu, --link,
--microbatch-size, --seq-len, --flash-attention) or explicit costs (--fwd,
--bwd, --wgrad, --comm).

Optimizers (torch.optim's formulas, one state and step counter per stage):
sgd, momentum and nesterov (--momentum μ, default 0.9), adam and adamw
(--beta1, --beta2, --eps; adamw's decoupled --weight-decay, default 0.01);
lion (--beta1 0.9, --beta2 0.99 and --weight-decay 0 by default, the
authors'); muon (Newton-Schulz-orthogonalised Nesterov momentum, --momentum
0.95 by default, on the objective's hidden-layer matrices, charlm's, with
--muon-scale original or match_rms_adamw; AdamW with --beta1, --beta2,
--eps and --weight-decay, default 0, on every other parameter: all of a
linear objective's);
--lr-schedule constant|cosine with --warmup K updates of linear warm-up.

The run length is --total-microbatches N, or --time-budget T: the smallest N whose
timeline reaches T (§1.6; rpd takes pipedream's N); sync runs whole iterations,
rounding N or T up. The overshoot past T is reported, and loss_at_budget is
the loss after the last update ending within T. --target-loss L reports the
time and updates to the first loss at or below L (the validation loss for
charlm), judged at the logged losses and at least every 1% of the run, however
few are logged. A run diverges when its loss is not finite or exceeds 10⁶
times its initial loss.

Objectives and their defaults (§1.7): quadratic (n 2000, d 512, batch 100),
tridiagonal (n 600, d 512, batch 5, μ 0.01), logistic (n 600, d 512, batch
10, --l2 1e-4, --noise 0.5; --noise σ adds gradient noise to the quadratic
too, default 0), generated from --seed, or read from --data X.csv
--labels y.csv; charlm, the character language
model (S ≥ 3, --blocks-per-stage K GPT blocks on each middle stage, default 1;
4 heads, batch 16, embed 64 and sequence 32, step 0.0625 (adam, adamw: 0.0035
with a cosine schedule and β2 0.99, sync updating every microbatch; markov:
2^-7, β2 0.999, S microbatches; docs/charlm.md), N 5600) on --corpus:
tinyshakespeare (the default, shipped with pipelab), markov (a generated chain
with a known loss floor, n training characters, default 100000) or a UTF-8 text
FILE; it trains on the first 90% of the text and prints its validation loss on
the last 10%. The loss is logged every --log-every block updates (default: 100
points; charlm: every 2800 microbatches, 2800·S updates); rpd has no timeline, so
its time is its iteration count.`

// trainFlags holds the flags of "pipelab train".
type trainFlags struct {
	objective, method         string
	stages, totalMicrobatches int
	timeBudget, stepSize      float64
	batchSize, n, d           int
	data, labels              string
	l2, noise                 float64
	delta                     int
	delays                    string
	replicas, localSteps      int
	microbatches              int
	seed                      uint64
	logEvery                  int
	logPoints                 int
	output                    request.OutputFlag

	kind, schedule string
	costs          request.CostFlags

	optimizer                   string
	momentum, beta1, beta2, eps float64
	weightDecay                 float64
	lrSchedule                  string
	warmup, accumulate          int
	pipemareWarmup              int
	pipemareDecay, dcLambda     float64
	efLambda                    float64
	muonScale                   string
	targetLoss                  float64
	lm                          lmFlags
	set                         map[string]bool
	progress                    bool
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.objective, "objective", "", "quadratic, tridiagonal, logistic or charlm")
	fs.StringVar(&f.method, "method", "", "pipedream, pd-nostash, 2bw, pipemare, predict, dc, dc-a, ef, rpd, localsgd or sync")
	fs.IntVar(&f.stages, "stages", 0, "pipeline stages S (with --kind: ranks P, the stage count when each rank holds one stage)")
	fs.IntVar(&f.totalMicrobatches, "total-microbatches", 0, "microbatches N over the whole run (all iterations)")
	fs.Float64Var(&f.timeBudget, "time-budget", 0, "simulated time budget T in the clock's unit (instead of --total-microbatches)")
	fs.Float64Var(&f.stepSize, "step-size", 0, "step size γ (required except for charlm: default 0.0625, 0.0078125 with adam and adamw, 0.001 with muon, 0.0001 with lion)")
	fs.IntVar(&f.batchSize, "batch-size", 0, "rows (charlm: sequences) per batch (default per objective)")
	fs.IntVar(&f.n, "n", 0, "rows of generated data (charlm: training characters of the markov corpus)")
	fs.IntVar(&f.d, "d", 0, "parameters of generated data (default 512)")
	fs.StringVar(&f.data, "data", "", "X.csv: one example per line, comma-separated")
	fs.StringVar(&f.labels, "labels", "", "y.csv: one target per line")
	fs.Float64Var(&f.l2, "l2", objectives.DefaultL2, "logistic L2 weight λ")
	fs.Float64Var(&f.noise, "noise", objectives.DefaultNoise, "additive gradient noise σ of the logistic and quadratic objectives (the quadratic takes 0 unless given)")
	fs.IntVar(&f.delta, "delta", -1, "rpd uniform delay bound δ (default ⌊S² - S/2⌋)")
	fs.StringVar(&f.delays, "delays", "uniform", "rpd delays: uniform, exact, pipedream-mean, pipedream-profile or a trace FILE")
	fs.IntVar(&f.replicas, "replicas", 0, "localsgd replicas R (default S)")
	fs.IntVar(&f.localSteps, "local-steps", 5, "localsgd local steps H between averagings")
	fs.IntVar(&f.microbatches, "microbatches", 0, "sync microbatches per iteration (default S)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the data and of every random stream of the run")
	fs.IntVar(&f.logEvery, "log-every", 0, "block updates between logged losses (default: --log-points points)")
	fs.IntVar(&f.logPoints, "log-points", 0, "logged losses over the run when --log-every is not given (default 100)")
	fs.BoolVar(&f.progress, "progress", false, "print progress on stderr every few seconds (the default when stderr is a terminal)")
	fs.StringVar(&f.kind, "kind", "", "schedule family to replay (see pipelab kinds)")
	fs.StringVar(&f.schedule, "schedule", "", "a PyTorch schedule CSV to replay instead of a generated table")
	f.costs.Register(fs)
	fs.StringVar(&f.optimizer, "optimizer", "sgd", "per-stage optimizer: sgd, momentum, nesterov, adam, adamw, lion or muon")
	fs.Float64Var(&f.momentum, "momentum", 0.9, "momentum and nesterov: μ; muon: β (default 0.95)")
	fs.Float64Var(&f.beta1, "beta1", 0.9, "adam, adamw, lion and muon's AdamW part: β1")
	fs.Float64Var(&f.beta2, "beta2", 0.999, "adam, adamw and muon's AdamW part: β2; lion: β2 (default 0.99)")
	fs.Float64Var(&f.eps, "eps", 1e-8, "adam, adamw and muon's AdamW part: ε")
	fs.Float64Var(&f.weightDecay, "weight-decay", 0.01, "adamw: decoupled weight decay wd; lion and muon: wd (default 0)")
	fs.StringVar(&f.muonScale, "muon-scale", string(optim.MuonOriginal), "muon: scale of the orthogonalised update, original (max(1, out/in)^½) or match_rms_adamw (0.2·√max(rows, cols))")
	fs.StringVar(&f.lrSchedule, "lr-schedule", "constant", "learning-rate schedule: constant or cosine")
	fs.IntVar(&f.warmup, "warmup", 0, "a stage's updates of linear learning-rate warm-up K")
	fs.IntVar(&f.accumulate, "accumulate", 0, "2bw and ef: microbatches A per update (default S)")
	fs.IntVar(&f.pipemareWarmup, "pipemare-warmup", 0, "pipemare: T, a stage's updates over which the rescheduling fades (default: the run's)")
	fs.Float64Var(&f.pipemareDecay, "pipemare-decay", optim.DefaultPipeMareDecay, "pipemare: D, the EMA factor of the weight-change estimate δ")
	fs.Float64Var(&f.dcLambda, "dc-lambda", optim.DefaultDCLambda, "dc: λ of the delay compensation g + λ·g⊙g⊙(w_now − w_stash); dc-a: λ0 (default 2)")
	fs.Float64Var(&f.efLambda, "ef-lambda", optim.DefaultEFLambda, "ef: λ of the error feedback u_t + λ·(u_t − u_{t−1})")
	fs.Float64Var(&f.targetLoss, "target-loss", 0, "report the time and updates to the first loss at or below L, judged every 1/100 of the run and at every record")
	f.output.Register(fs)
	f.lm.register(fs)
	request.MarkFiles(fs, request.ReadsFile, nil, "data", "labels", "schedule")
	request.MarkFiles(fs, request.ReadsFile, []string{"uniform", "exact", optim.DelayModelPipeDreamMean, optim.DelayModelPipeDreamProfile}, "delays")
}

// methodFlags are the flags only some methods use, and optimizerFlags
// those only some optimizers use.
var (
	methodFlags = map[string][]string{
		"delta": {"rpd"}, "delays": {"rpd"}, "replicas": {"localsgd"}, "local-steps": {"localsgd"},
		"microbatches": {"sync"}, "accumulate": {"2bw", "ef"}, "pipemare-warmup": {"pipemare"},
		"pipemare-decay": {"pipemare"}, "dc-lambda": {"dc", "dc-a"}, "ef-lambda": {"ef"},
	}
	optimizerFlags = map[string][]string{
		"momentum": {"momentum", "nesterov", "muon"}, "beta1": {"adam", "adamw", "lion", "muon"},
		"beta2": {"adam", "adamw", "lion", "muon"}, "eps": {"adam", "adamw", "muon"},
		"weight-decay": {"adamw", "lion", "muon"}, "muon-scale": {"muon"},
	}
	// Objectives and Methods are the specs' names, which the
	// objective and method columns hold (TestOneNamePerConcept).
	Objectives = experiments.KnownObjectives
	Methods    = experiments.KnownMethods
)

// unused returns the first flag of uses that is set but not used by
// choice, in a fixed order.
func (f *trainFlags) unused(uses map[string][]string, choice string) string {
	var names []string
	for name := range uses {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if f.set[name] && !slices.Contains(uses[name], choice) {
			return name
		}
	}
	return ""
}

// check validates the flags and fills the objective's defaults, naming
// the flag that is wrong.
func (f *trainFlags) check(rest []string) error {
	if err := request.NoArguments(rest); err != nil {
		return err
	}
	if err := f.checkLM(); err != nil {
		return err
	}
	switch {
	case !oneOf(f.objective, Objectives...):
		return fmt.Errorf("--objective must be one of %s, got %q", strings.Join(Objectives, ", "), f.objective)
	case !oneOf(f.method, Methods...):
		return fmt.Errorf("--method must be one of %s, got %q", strings.Join(Methods, ", "), f.method)
	case !slices.Contains(optim.Algorithms, optim.Algorithm(f.optimizer)):
		return fmt.Errorf("--optimizer must be sgd, momentum, nesterov, adam, adamw, lion or muon, got %q", f.optimizer)
	case f.muonScale != string(optim.MuonOriginal) && f.muonScale != string(optim.MuonMatchRMS):
		return fmt.Errorf("--muon-scale must be original or match_rms_adamw, got %q", f.muonScale)
	case !oneOf(f.lrSchedule, "constant", "cosine"):
		return fmt.Errorf("--lr-schedule must be constant or cosine, got %q", f.lrSchedule)
	}
	if name := f.unused(methodFlags, f.method); name != "" {
		return fmt.Errorf("--%s applies to --method %s, not %s", name, request.OrList(methodFlags[name]), f.method)
	}
	if name := f.unused(optimizerFlags, f.optimizer); name != "" {
		return fmt.Errorf("--%s applies to --optimizer %s, not %s", name, request.OrList(optimizerFlags[name]), f.optimizer)
	}
	if err := f.checkTable(); err != nil {
		return err
	}
	switch {
	case f.schedule == "" && f.stages < 1:
		return request.Required("stages", f.stages, f.set)
	case f.set["total-microbatches"] && f.set["time-budget"]:
		return errors.New("give exactly one of --total-microbatches and --time-budget")
	case !f.set["total-microbatches"] && !f.set["time-budget"] && (f.schedule == "" || f.methodDesc().Replay == optim.ReplayFlush):
		return errors.New("give exactly one of --total-microbatches and --time-budget")
	case f.set["total-microbatches"] && f.totalMicrobatches < 1:
		return request.AtLeast("total-microbatches", f.totalMicrobatches, 1)
	case f.set["time-budget"] && !(f.timeBudget > 0 && f.timeBudget < math.Inf(1)):
		return fmt.Errorf("--time-budget must be positive, got %g", f.timeBudget)
	case (f.data == "") != (f.labels == ""):
		return errors.New("--data and --labels go together")
	case f.data != "" && (f.set["n"] || f.set["d"] || f.objectiveDesc().LM):
		return errors.New("--data replaces --n and --d, and charlm reads --corpus instead")
	case f.set["l2"] && !f.objectiveDesc().L2:
		return errors.New("--l2 applies to the logistic objective only")
	case f.set["noise"] && !f.objectiveDesc().Noise:
		return errors.New("--noise applies to the logistic and quadratic objectives only")
	case f.set["noise"] && !(f.noise >= 0 && f.noise < math.Inf(1)):
		return fmt.Errorf("--noise %v is not a finite σ of at least 0", f.noise)
	case f.set["accumulate"] && f.accumulate < 1:
		return request.AtLeast("accumulate", f.accumulate, 1)
	case f.warmup < 0 || f.pipemareWarmup < 0:
		return fmt.Errorf("--warmup and --pipemare-warmup must not be negative, got %d and %d", f.warmup, f.pipemareWarmup)
	case !(f.pipemareDecay >= 0 && f.pipemareDecay < 1):
		return fmt.Errorf("--pipemare-decay must be in [0, 1), got %g", f.pipemareDecay)
	case !(f.dcLambda >= 0) || math.IsInf(f.dcLambda, 0):
		return fmt.Errorf("--dc-lambda must be non-negative, got %g", f.dcLambda)
	case !(f.efLambda >= 0) || math.IsInf(f.efLambda, 0):
		return fmt.Errorf("--ef-lambda must be non-negative, got %g", f.efLambda)
	case !(f.targetLoss >= 0) || math.IsInf(f.targetLoss, 0) || (f.set["target-loss"] && f.targetLoss == 0):
		return fmt.Errorf("--target-loss must be positive, got %g", f.targetLoss)
	}
	if err := f.optimizerSettings().Validate(); err != nil {
		return fmt.Errorf("--optimizer %s: %w", f.optimizer, errors.Unwrap(err))
	}
	if err := f.output.Check(); err != nil {
		return err
	}
	if f.set["log-every"] && f.set["log-points"] {
		return errors.New("--log-every and --log-points: give one of the two")
	}
	if f.logEvery < 0 || f.logPoints < 0 || f.batchSize < 0 || f.n < 0 || f.d < 0 || f.replicas < 0 || f.localSteps < 1 || f.microbatches < 0 {
		return errors.New("--log-every, --log-points, --batch-size, --n, --d, --replicas and --microbatches must not be negative, --local-steps at least 1")
	}
	defaults := map[string][3]int{ // n, d, batch (docs/reference.md §1.7)
		"quadratic": {2000, 512, 100}, "tridiagonal": {600, 512, 5}, "logistic": {600, 512, 10}, "charlm": {100000, 0, 16},
	}[f.objective]
	f.n, f.d, f.batchSize = orDefault(f.n, defaults[0]), orDefault(f.d, defaults[1]), orDefault(f.batchSize, defaults[2])
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
	f.microbatches = orDefault(f.microbatches, f.stages)
	if f.objectiveDesc().LM {
		return f.checkLMCorpus()
	}
	return nil
}

// checkTable validates the flags that choose and time the table.
func (f *trainFlags) checkTable() error {
	f.costs.Set = f.set
	switch {
	case f.kind != "" && f.schedule != "":
		return errors.New("give --kind or --schedule, not both")
	case f.schedule != "" && f.set["stages"]:
		return errors.New("--schedule reads the stage count from the file: drop --stages")
	case f.schedule != "" && f.methodDesc().Replay != optim.ReplayFlush && (f.set["total-microbatches"] || f.set["time-budget"]):
		return fmt.Errorf("--schedule is the whole run of --method %s: drop --total-microbatches and --time-budget", f.method)
	case f.schedule != "" && f.set["microbatches"]:
		return errors.New("--schedule sets the microbatches per iteration: drop --microbatches")
	case f.methodDesc().Replay == optim.ReplaySampled && f.delays != "exact" && (f.kind != "" || f.schedule != "" || !f.costDesc().Unit):
		return errors.New("--method rpd samples its delays: --kind, --schedule and cost flags apply only with --delays exact")
	}
	if f.kind != "" {
		if err := request.UnknownFamily(f.kind); err != nil {
			return fmt.Errorf("--kind %w", err)
		}
	}
	if err := f.costs.Check(); err != nil {
		return err
	}
	if f.costs.Kind() == "lockstep" {
		return errors.New("--cost-model lockstep times PyTorch's check, not a run: use unit time, explicit or GPU costs")
	}
	if f.costDesc().GPU && f.stages > 0 {
		// One microbatch's activations must fit on a stage's GPU.
		cfg, err := f.costs.Presets.Config()
		if err != nil {
			return err
		}
		gm, err := cost.NewGPUModel(cfg, f.stages)
		if err != nil {
			return err
		}
		return f.costs.Presets.FitsOneMicrobatch(cfg, gm, f.stages)
	}
	return nil
}

// optimizerSettings is the optimizer the flags ask for.
func (f *trainFlags) optimizerSettings() optim.Optimizer {
	o := optim.Optimizer{Algorithm: optim.Algorithm(f.optimizer), Schedule: optim.Schedule(f.lrSchedule), Warmup: f.warmup}
	switch o.Algorithm {
	case optim.Momentum, optim.Nesterov:
		o.Momentum = f.momentum
	case optim.Adam, optim.AdamW:
		o.Beta1, o.Beta2, o.Eps = f.beta1, f.beta2, f.eps
		if o.Algorithm == optim.AdamW {
			o.WeightDecay = f.weightDecay
		}
	case optim.Lion:
		// The authors' defaults where the flags' are Adam's.
		o.Beta1, o.Beta2, o.WeightDecay = f.beta1, f.flagOr("beta2", f.beta2, 0.99), f.flagOr("weight-decay", f.weightDecay, 0)
	case optim.Muon:
		o.Momentum = f.flagOr("momentum", f.momentum, optim.DefaultMuonMomentum)
		o.Beta1, o.Beta2, o.Eps = f.beta1, f.beta2, f.eps
		o.WeightDecay = f.flagOr("weight-decay", f.weightDecay, 0)
		o.MuonScale = optim.MuonScale(f.muonScale)
	}
	return o
}

// flagOr is the flag's value when it was given, else def.
func (f *trainFlags) flagOr(name string, v, def float64) float64 {
	if f.set[name] {
		return v
	}
	return def
}

func oneOf(s string, options ...string) bool { return slices.Contains(options, s) }

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func parseTrain(args []string, stderr io.Writer) (*trainFlags, experiments.Run, error) {
	fs := request.NewFlags("train", Synopsis, trainDescription, stderr)
	f := &trainFlags{}
	f.register(fs)
	if err := request.ParseFlags(fs, args); err != nil {
		return nil, experiments.Run{}, err
	}
	f.set = request.SetFlags(fs)
	if err := f.check(fs.Args()); err != nil {
		return nil, experiments.Run{}, request.FlagProblem(fs, stderr, "train", err)
	}
	if !f.objectiveDesc().LM && f.data == "" {
		if err := experiments.GuardData(f.n, f.d); err != nil {
			return nil, experiments.Run{}, err
		}
	}
	r, err := f.run()
	if err != nil {
		return nil, experiments.Run{}, err
	}
	return f, r, nil
}

// Request is one "pipelab train" as Decode reads it from its flags: the
// one run they build (experiments.Run, which a sweep of the same settings
// runs alike) and the flags, which name its report.
type Request struct {
	Run experiments.Run
	f   *trainFlags
}

// Output is what a train command line asks beyond its report: --format,
// and --progress (progress lines on stderr).
type Output struct {
	Format   string
	Progress bool
}

// Decode decodes train's flags into its request. A flag error's usage
// goes to stderr.
func Decode(args []string, stderr io.Writer) (Request, Output, error) {
	f, r, err := parseTrain(args, stderr)
	if err != nil {
		return Request{}, Output{}, err
	}
	return Request{Run: r, f: f}, Output{Format: f.output.Format, Progress: f.progress}, nil
}

// Train replays the request's run (experiments.Train), passing each loss
// record to record as it is taken when record is not nil, and stops at
// the next record once ctx ends.
func Train(ctx context.Context, req Request, record func(optim.Record) error) (Report, error) {
	if req.f == nil {
		return Report{}, fault.Badf("train: no request (Decode builds it)")
	}
	r := req.Run
	r.Record = record
	res, err := experiments.Train(ctx, r)
	if err != nil {
		return Report{}, err
	}
	return req.f.report(res), nil
}
