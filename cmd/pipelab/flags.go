package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/internal/atomicfile"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
	"github.com/pipelab/pipelab/request"
)

// Flag groups several subcommands declare alike: each registers its flags
// on a flag set and checks them with errors that name the flag.

// setFlags returns the names of the flags given on the command line, for
// checks that tell a default from a value given explicitly.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) {
		set[fl.Name] = true
	})
	return set
}

// flagProblem prints what is wrong with the flags of command name in one
// line and where the help is, and returns errUsage.
func flagProblem(fs *flag.FlagSet, stderr io.Writer, name string, err error) error {
	fmt.Fprintln(stderr, flagLine(fs, name, oneLine(userText(err))))
	return errUsage
}

// noArguments refuses positional arguments to a command that takes flags
// only.
func noArguments(rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (all inputs are flags)", rest[0])
	}
	return nil
}

// firstError returns the first of the checks' errors that is not nil,
// for checks that are cheap enough to run all.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// required refuses a positive integer flag left out as a missing flag,
// and one given below 1 (0 included: set holds the flags given) as out of
// range, naming the flag.
func required(name string, v int, set map[string]bool) error {
	if v == 0 && !set[name] {
		return fmt.Errorf("--%s is required", name)
	}
	return atLeast(name, v, 1)
}

// atLeast refuses an integer flag below low, naming the flag.
func atLeast(name string, v, low int) error {
	if v < low {
		return fmt.Errorf("--%s must be at least %d, got %d", name, low, v)
	}
	return nil
}

// finiteFloats refuses a float flag given a value that is not a finite
// number: NaN and ±Inf parse as floats but no flag of pipelab means them.
func finiteFloats(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		g, ok := fl.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		if x, ok := g.Get().(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
			err = fmt.Errorf("--%s must be a finite number, got %v", fl.Name, x)
		}
	})
	return err
}

// inRange refuses a float flag outside [low, high], naming the flag and
// the range.
func inRange(name string, v, low, high float64) error {
	if !(v >= low && v <= high) {
		return fmt.Errorf("--%s must be in [%g, %g], got %g", name, low, high, v)
	}
	return nil
}

// writeOutputFile writes the file a flag names whole or not at all
// (atomicfile.Write), so that neither a failed write nor a signal leaves a
// partial file; errors name the flag.
func writeOutputFile(name, path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, func(f *os.File) error { return write(f) }); err != nil {
		return fmt.Errorf("--%s %s: %w", name, path, err)
	}
	return nil
}

// familyNames lists the schedule families in registry order, then
// zb-auto, which is built from costs (zbauto.go).
func familyNames() []string {
	var names []string
	for _, f := range pipeline.Families() {
		names = append(names, f.Name)
	}
	return append(names, tune.ZBAutoFamily)
}

// unknownFamily says that name is not a schedule family, or returns nil.
func unknownFamily(name string) error {
	if names := familyNames(); !slices.Contains(names, name) {
		return fmt.Errorf("%q is not a schedule family (one of %s)", name, strings.Join(names, ", "))
	}
	return nil
}

// kindItem is one family[:chunks] item of --kind: a schedule family and
// its chunks per rank V, 0 for the family's default.
type kindItem struct {
	name   string
	chunks int
}

// parseKinds reads --kind, a comma-separated family[:chunks] list
// ("1f1b,interleaved-1f1b:4,zb-v"): the one form every command's --kind
// takes, one item or several.
func parseKinds(list string) ([]kindItem, error) {
	var out []kindItem
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		name, chunks, hasChunks := strings.Cut(item, ":")
		if name == "" {
			return nil, fmt.Errorf("--kind: empty family in %q", list)
		}
		if err := unknownFamily(name); err != nil {
			return nil, fmt.Errorf("--kind %w", err)
		}
		k := kindItem{name: name}
		if hasChunks {
			v, err := strconv.Atoi(chunks)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("--kind %q: chunks after the colon must be a positive integer", item)
			}
			k.chunks = v
		}
		out = append(out, k)
	}
	return out, nil
}

// parseKind reads the one family[:chunks] of --kind into s.kind and
// s.chunks; chunks given both ways must agree.
func (s *shapeFlags) parseKind(set map[string]bool) error {
	items, err := parseKinds(s.kind)
	if err != nil {
		return err
	}
	if len(items) != 1 {
		return fmt.Errorf("--kind takes one family here, got %q", s.kind)
	}
	k := items[0]
	if k.chunks > 0 && set["chunks"] && s.chunks != k.chunks {
		return fmt.Errorf("--kind %s and --chunks %d disagree", s.kind, s.chunks)
	}
	s.kind = k.name
	if k.chunks > 0 {
		s.chunks = k.chunks
	}
	return nil
}

// shapeFlags are a generated schedule's family and shape: --kind,
// --ranks, --microbatches (or --total-microbatches for the asynchronous
// families), --chunks, --local-steps and --max-activations, and with
// registerFamilyOptions --replicas and --noam.
type shapeFlags struct {
	kind                       string
	ranks, microbatches        int
	totalMicrobatches, chunks  int
	replicas, localSteps, noam int
	maxActivations             int
	wgradMemory                float64 // zb-auto: M_W as a fraction of M_B (--wgrad-memory)
	// cellBytes is the command's memory per table cell, for the size
	// guard (guardShape); 0 checks nothing.
	cellBytes float64
	// set is the flags given (setFlags), once they are parsed.
	set map[string]bool
}

// asyncFamilies are the families with no iteration: their shape is the
// total N of microbatches over the run (--total-microbatches), not the
// microbatches of one iteration.
var asyncFamilies = []string{"pipedream", "localsgd"}

func (s *shapeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.kind, "kind", "", "schedule family (see pipelab kinds)")
	fs.IntVar(&s.ranks, "ranks", 0, "pipeline ranks (devices) P; a rank holds V chunks, so S = P·V stages")
	fs.IntVar(&s.microbatches, "microbatches", 0, "microbatches M of one iteration")
	fs.IntVar(&s.totalMicrobatches, "total-microbatches", 0, "pipedream and localsgd: microbatches N over the run (they have no iteration)")
	fs.IntVar(&s.chunks, "chunks", 0, "chunks (stages) per rank V; 0 takes the family's default")
	fs.IntVar(&s.localSteps, "local-steps", 0, "localsgd: local steps H between averagings")
	fs.IntVar(&s.maxActivations, "max-activations", 0, "zb-auto: microbatches of activations (M_B) a rank may hold; 0 means P")
	fs.Float64Var(&s.wgradMemory, "wgrad-memory", 0, wgradMemoryUsage)
}

// registerFamilyOptions adds the options of the pipedream and localsgd
// families that only "schedule" offers.
func (s *shapeFlags) registerFamilyOptions(fs *flag.FlagSet) {
	fs.IntVar(&s.replicas, "replicas", 0, "localsgd: replicas R; 0 means P")
	fs.IntVar(&s.noam, "noam", 0, "pipedream: microbatches admitted in flight on stage 0; 0 means P")
}

// async reports whether the family has no iteration (asyncFamilies).
func (s *shapeFlags) async() bool { return slices.Contains(asyncFamilies, s.kind) }

// count is the microbatch count of the shape: N for the asynchronous
// families, M otherwise.
func (s *shapeFlags) count() int {
	if s.async() {
		return s.totalMicrobatches
	}
	return s.microbatches
}

// countFlag names the flag count comes from.
func (s *shapeFlags) countFlag() string {
	if s.async() {
		return "total-microbatches"
	}
	return "microbatches"
}

// check refuses a shape no family could take; a required flag left out
// is named as required.
func (s *shapeFlags) check() error {
	if err := required("ranks", s.ranks, s.set); err != nil {
		return err
	}
	switch {
	case s.async() && s.microbatches != 0:
		return fmt.Errorf("--kind %s has no iteration: give --total-microbatches N, not --microbatches", s.kind)
	case !s.async() && s.totalMicrobatches != 0:
		return fmt.Errorf("--total-microbatches is for pipedream and localsgd; --kind %s takes --microbatches M of one iteration", s.kind)
	}
	if err := required(s.countFlag(), s.count(), s.set); err != nil {
		return err
	}
	if s.chunks < 0 {
		return fmt.Errorf("--chunks must be at least 1 (0 for the family's default), got %d", s.chunks)
	}
	return nil
}

// generate builds the schedule; a family's refusal names the flags.
func (s *shapeFlags) generate() (*pipeline.Table, error) {
	sh := pipeline.Shape{
		Ranks: s.ranks, Microbatches: s.count(), Chunks: s.chunks,
		Replicas: s.replicas, LocalSteps: s.localSteps, NOAM: s.noam,
	}
	if s.cellBytes > 0 {
		if err := guardShape(s.kind, sh, s.cellBytes); err != nil {
			return nil, err
		}
	}
	t, err := pipeline.Generate(s.kind, sh)
	if err != nil {
		return nil, badInput{fmt.Errorf("--kind %s --ranks %d --%s %d: %w", s.kind, s.ranks, s.countFlag(), s.count(), withoutPackage(err))}
	}
	return t, nil
}

// costFlags are the cost flags "simulate" and "compare" share.
type costFlags struct {
	cost                  string
	fwd, bwd, wgrad, comm float64
	presets               presetFlags
	// partition, when not nil, is the layers of each model part under the
	// GPU model (simulate --partition); nil cuts the model evenly.
	partition []int
	set       map[string]bool
	measured  measuredFlags
}

func (c *costFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.cost, "cost-model", "unit", "unit, or lockstep (PyTorch's unit-time check), when no explicit or GPU cost is given")
	fs.Float64Var(&c.fwd, "fwd", 0, "forward time T_F of one rank's share of the model")
	fs.Float64Var(&c.bwd, "bwd", 0, "input-gradient time T_B (a full backward takes T_B + T_W)")
	fs.Float64Var(&c.wgrad, "wgrad", 0, "weight-gradient time T_W")
	fs.Float64Var(&c.comm, "comm", 0, "time of one message between ranks")
	c.presets.register(fs, "model preset for the GPU timing model", " (with --model)")
	c.measured.register(fs)
}

// kind says which cost model the flags ask for: "gpu", "explicit",
// "measured", "unit" or "lockstep".
func (c *costFlags) kind() string {
	switch {
	case c.measured.given():
		return "measured"
	case c.presets.given():
		return "gpu"
	case c.set["fwd"] || c.set["bwd"] || c.set["wgrad"] || c.set["comm"]:
		return "explicit"
	}
	return c.cost
}

// check names the cost flag that is wrong.
func (c *costFlags) check() error {
	explicit := c.set["fwd"] || c.set["bwd"] || c.set["wgrad"] || c.set["comm"]
	gpuOnly := c.set["gpu"] || c.set["link"] || c.set["hardware"] || c.set["microbatch-size"] || c.set["seq-len"] || c.set["efficiency"] ||
		c.set["tp"] || c.set["dp"] || c.set["gpus-per-node"] || c.set["node-link"] || c.set["recompute"] || c.set["sequence-parallel"] ||
		c.set["distributed-optimizer"] || c.set["overlap-grad-reduce"]
	switch {
	case c.cost != "unit" && c.cost != "lockstep":
		return fmt.Errorf("--cost-model must be unit or lockstep, got %q", c.cost)
	case c.set["cost-model"] && (explicit || c.presets.given()):
		return fmt.Errorf("--cost-model %s cannot be combined with explicit (--fwd ...) or GPU (--model) costs", c.cost)
	case explicit && c.presets.given():
		return fmt.Errorf("explicit costs (--fwd, --bwd, --wgrad, --comm) and --model exclude each other")
	case gpuOnly && !c.presets.given():
		return fmt.Errorf("--gpu, --link, --hardware, --microbatch-size, --seq-len, --efficiency and the cluster flags (--tp, --dp, --gpus-per-node, --node-link, --recompute, --sequence-parallel, --distributed-optimizer, --overlap-grad-reduce) need --model")
	case explicit && (c.fwd <= 0 || c.bwd <= 0):
		return fmt.Errorf("explicit costs need --fwd and --bwd above 0, got %g and %g", c.fwd, c.bwd)
	case c.wgrad < 0 || c.comm < 0:
		return fmt.Errorf("--wgrad and --comm must not be negative, got %g and %g", c.wgrad, c.comm)
	case explicit && cost.CheckExplicit(c.fwd, c.bwd, c.wgrad, c.comm) != nil:
		return cost.CheckExplicit(c.fwd, c.bwd, c.wgrad, c.comm)
	case c.measured.given() && (c.set["cost-model"] || explicit || c.presets.given()):
		return fmt.Errorf("measured costs (--costs, --profile) exclude --cost-model, explicit (--fwd ...) and GPU (--model) costs")
	}
	if c.measured.given() {
		return c.measured.check()
	}
	return c.presets.check()
}

// pricing is a cost model for one table, with the memory model and message
// sizes when the GPU model provides them.
type pricing struct {
	cost   cost.Model
	memory cost.Memory
	sizer  cost.MessageSizer
	share  cost.Stage // one rank's share of the model, for the formulas
	name   string
	// memoryLimit is the GPU's memory in bytes under the GPU model (0
	// otherwise): a rank whose peak exceeds it is marked, as tune does.
	memoryLimit float64
	// params and activeParams are the GPU model's total parameters and
	// those a token runs through (0 otherwise).
	params, activeParams float64
}

// request is the pricing as the simulate request takes it.
func (p pricing) request() request.Pricing {
	return request.Pricing{Cost: p.cost, Memory: p.memory, Sizer: p.sizer, Name: p.name,
		MemoryLimit: p.memoryLimit, Params: p.params, ActiveParams: p.activeParams}
}

// pricingFor builds the cost model of the flags for table t (not for
// --cost-model lockstep, which times no cost model).
func (c *costFlags) pricingFor(t *pipeline.Table) (pricing, error) {
	switch c.kind() {
	case "unit":
		return pricing{cost: cost.Unit{}, share: cost.UnitShare(t), name: "unit"}, nil
	case "measured":
		return c.measured.pricingFor(t)
	case "explicit":
		share := cost.Stage{TF: c.fwd, TB: c.bwd, TW: c.wgrad}
		return pricing{cost: cost.ForRankShare(t, share, c.comm), share: share,
			name: fmt.Sprintf("explicit (T_F %g, T_B %g, T_W %g per rank share, %g per message)", c.fwd, c.bwd, c.wgrad, c.comm)}, nil
	}
	cfg, err := c.presets.config()
	if err != nil {
		return pricing{}, err
	}
	var gm cost.StageModel
	if c.partition != nil {
		if gm, err = cost.GPUForTablePartition(cfg, t, c.partition); err != nil {
			return pricing{}, badInput{fmt.Errorf("--partition: %w", err)}
		}
	} else if gm, err = cost.GPUForTable(cfg, t); err != nil {
		return pricing{}, err
	}
	if err := c.presets.fitsOneMicrobatch(cfg, gm, t.Stages()); err != nil {
		return pricing{}, err
	}
	share, err := cost.MeanShare(cfg, t.Ranks())
	if err != nil {
		return pricing{}, err
	}
	return pricing{cost: gm, memory: gm, sizer: gm, share: share, memoryLimit: cfg.GPU.MemoryBytes,
		params: cfg.Network.Params(), activeParams: cfg.Network.ActiveParams(),
		name: fmt.Sprintf("GPU model (%s on %s, b=%d, s=%d%s; seconds)", c.presets.modelName(), hardwareName(cfg), c.presets.microbatchSize, c.presets.seqLen, c.costNote())}, nil
}

// unit names the time unit of the flags' cost model, for axis labels.
func (c *costFlags) unit() string {
	switch c.kind() {
	case "gpu":
		return "s"
	case "explicit":
		return "cost units"
	}
	return "steps"
}

// costNote names the GPU model's options that are not the default.
func (c *costFlags) costNote() string {
	var note string
	if c.presets.flash {
		note += ", flash attention"
	}
	if c.presets.expertParallel > 1 {
		note += fmt.Sprintf(", expert parallel %d", c.presets.expertParallel)
	}
	if c.partition != nil {
		parts := make([]string, len(c.partition))
		for i, n := range c.partition {
			parts[i] = strconv.Itoa(n)
		}
		note += ", partition " + strings.Join(parts, " ")
	}
	return note
}
