package request

import (
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
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
)

// Flag groups several subcommands declare alike: each registers its flags
// on a flag set and checks them with errors that name the flag.

// SetFlags returns the names of the flags given on the command line, for
// checks that tell a default from a value given explicitly.
func SetFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) {
		set[fl.Name] = true
	})
	return set
}

// FlagProblem prints what is wrong with the flags of command name in one
// line and where the help is, and returns ErrUsage.
func FlagProblem(fs *flag.FlagSet, stderr io.Writer, name string, err error) error {
	fmt.Fprintln(stderr, FlagLine(fs, name, OneLine(UserText(err))))
	return ErrUsage
}

// NoArguments refuses positional arguments to a command that takes flags
// only.
func NoArguments(rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (all inputs are flags)", rest[0])
	}
	return nil
}

// FirstError returns the first of the checks' errors that is not nil,
// for checks that are cheap enough to run all.
func FirstError(errs ...error) error {
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
func Required(name string, v int, set map[string]bool) error {
	if v == 0 && !set[name] {
		return fmt.Errorf("--%s is required", name)
	}
	return AtLeast(name, v, 1)
}

// AtLeast refuses an integer flag below low, naming the flag.
func AtLeast(name string, v, low int) error {
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

// InRange refuses a float flag outside [low, high], naming the flag and
// the range.
func InRange(name string, v, low, high float64) error {
	if !(v >= low && v <= high) {
		return fmt.Errorf("--%s must be in [%g, %g], got %g", name, low, high, v)
	}
	return nil
}

// WriteOutputFile writes the file a flag names whole or not at all
// (atomicfile.Write), so that neither a failed write nor a signal leaves a
// partial file; errors name the flag.
func WriteOutputFile(name, path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, func(f *os.File) error { return write(f) }); err != nil {
		return fmt.Errorf("--%s %s: %w", name, path, err)
	}
	return nil
}

// FamilyNames lists the schedule families in registry order, then
// zb-auto, which is built from costs (zbauto.go).
func FamilyNames() []string {
	var names []string
	for _, f := range pipeline.Families() {
		names = append(names, f.Name)
	}
	return append(names, tune.ZBAutoFamily)
}

// UnknownFamily says that name is not a schedule family, or returns nil.
func UnknownFamily(name string) error {
	if names := FamilyNames(); !slices.Contains(names, name) {
		return fmt.Errorf("%q is not a schedule family (one of %s)", name, strings.Join(names, ", "))
	}
	return nil
}

// KindItem is one family[:chunks] item of --kind: a schedule family and
// its chunks per rank V, 0 for the family's default.
type KindItem struct {
	Name   string
	Chunks int
}

// ParseKinds reads --kind, a comma-separated family[:chunks] list
// ("1f1b,interleaved-1f1b:4,zb-v"): the one form every command's --kind
// takes, one item or several.
func ParseKinds(list string) ([]KindItem, error) {
	var out []KindItem
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		name, chunks, hasChunks := strings.Cut(item, ":")
		if name == "" {
			return nil, fmt.Errorf("--kind: empty family in %q", list)
		}
		if err := UnknownFamily(name); err != nil {
			return nil, fmt.Errorf("--kind %w", err)
		}
		k := KindItem{Name: name}
		if hasChunks {
			v, err := strconv.Atoi(chunks)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("--kind %q: chunks after the colon must be a positive integer", item)
			}
			k.Chunks = v
		}
		out = append(out, k)
	}
	return out, nil
}

// parseKind reads the one family[:chunks] of --kind into s.kind and
// s.chunks; chunks given both ways must agree.
func (s *ShapeFlags) ParseKind(set map[string]bool) error {
	items, err := ParseKinds(s.Kind)
	if err != nil {
		return err
	}
	if len(items) != 1 {
		return fmt.Errorf("--kind takes one family here, got %q", s.Kind)
	}
	k := items[0]
	if k.Chunks > 0 && set["chunks"] && s.Chunks != k.Chunks {
		return fmt.Errorf("--kind %s and --chunks %d disagree", s.Kind, s.Chunks)
	}
	s.Kind = k.Name
	if k.Chunks > 0 {
		s.Chunks = k.Chunks
	}
	return nil
}

// ShapeFlags are a generated schedule's family and shape: --kind,
// --ranks, --microbatches (or --total-microbatches for the asynchronous
// families), --chunks, --local-steps and --max-activations, and with
// registerFamilyOptions --replicas and --noam.
type ShapeFlags struct {
	Kind                       string
	Ranks, Microbatches        int
	TotalMicrobatches, Chunks  int
	Replicas, LocalSteps, Noam int
	MaxActivations             int
	WgradMemory                float64 // zb-auto: M_W as a fraction of M_B (--wgrad-memory)
	// ZBBySpan chooses zb-auto by its longest rank span
	// (tune.ZBAutoProblem.BySpan): simulate sets it with --post-validation.
	ZBBySpan bool
	// CellBytes is the command's memory per table cell, for the size
	// guard (GuardShape); 0 checks nothing.
	CellBytes float64
	// Set is the flags given (SetFlags), once they are parsed.
	Set map[string]bool
}

// asyncFamilies are the families with no iteration: their shape is the
// total N of microbatches over the run (--total-microbatches), not the
// microbatches of one iteration.
var asyncFamilies = []string{"pipedream", "localsgd"}

func (s *ShapeFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.Kind, "kind", "", "schedule family (see pipelab kinds)")
	fs.IntVar(&s.Ranks, "ranks", 0, "pipeline ranks (devices) P; a rank holds V chunks, so S = P·V stages")
	fs.IntVar(&s.Microbatches, "microbatches", 0, "microbatches M of one iteration")
	fs.IntVar(&s.TotalMicrobatches, "total-microbatches", 0, "pipedream and localsgd: microbatches N over the run (they have no iteration)")
	fs.IntVar(&s.Chunks, "chunks", 0, "chunks (stages) per rank V; 0 takes the family's default")
	fs.IntVar(&s.LocalSteps, "local-steps", 0, "localsgd: local steps H between averagings")
	fs.IntVar(&s.MaxActivations, "max-activations", 0, "zb-auto: microbatches of activations (M_B) a rank may hold; 0 means P")
	fs.Float64Var(&s.WgradMemory, "wgrad-memory", 0, WgradMemoryUsage)
}

// registerFamilyOptions adds the options of the pipedream and localsgd
// families that only "schedule" offers.
func (s *ShapeFlags) RegisterFamilyOptions(fs *flag.FlagSet) {
	fs.IntVar(&s.Replicas, "replicas", 0, "localsgd: replicas R; 0 means P")
	fs.IntVar(&s.Noam, "noam", 0, "pipedream: microbatches admitted in flight on stage 0; 0 means P")
}

// async reports whether the family has no iteration (asyncFamilies).
func (s *ShapeFlags) Async() bool { return slices.Contains(asyncFamilies, s.Kind) }

// count is the microbatch count of the shape: N for the asynchronous
// families, M otherwise.
func (s *ShapeFlags) Count() int {
	if s.Async() {
		return s.TotalMicrobatches
	}
	return s.Microbatches
}

// countFlag names the flag count comes from.
func (s *ShapeFlags) CountFlag() string {
	if s.Async() {
		return "total-microbatches"
	}
	return "microbatches"
}

// check refuses a shape no family could take; a required flag left out
// is named as required.
func (s *ShapeFlags) Check() error {
	if err := Required("ranks", s.Ranks, s.Set); err != nil {
		return err
	}
	switch {
	case s.Async() && s.Microbatches != 0:
		return fmt.Errorf("--kind %s has no iteration: give --total-microbatches N, not --microbatches", s.Kind)
	case !s.Async() && s.TotalMicrobatches != 0:
		return fmt.Errorf("--total-microbatches is for pipedream and localsgd; --kind %s takes --microbatches M of one iteration", s.Kind)
	}
	if err := Required(s.CountFlag(), s.Count(), s.Set); err != nil {
		return err
	}
	if s.Chunks < 0 {
		return fmt.Errorf("--chunks must be at least 1 (0 for the family's default), got %d", s.Chunks)
	}
	return nil
}

// generate builds the schedule; a family's refusal names the flags.
func (s *ShapeFlags) Generate() (*pipeline.Table, error) {
	sh := pipeline.Shape{
		Ranks: s.Ranks, Microbatches: s.Count(), Chunks: s.Chunks,
		Replicas: s.Replicas, LocalSteps: s.LocalSteps, NOAM: s.Noam,
	}
	if s.CellBytes > 0 {
		if err := GuardShape(s.Kind, sh, s.CellBytes); err != nil {
			return nil, err
		}
	}
	t, err := pipeline.Generate(s.Kind, sh)
	if err != nil {
		return nil, fault.Bad(fmt.Errorf("--kind %s --ranks %d --%s %d: %w", s.Kind, s.Ranks, s.CountFlag(), s.Count(), withoutPackage(err)))
	}
	return t, nil
}

// CostFlags are the cost flags "simulate" and "compare" share.
type CostFlags struct {
	Cost                  string
	Fwd, Bwd, WGrad, Comm float64
	Presets               PresetFlags
	// Partition, when not nil, is the layers of each model part under the
	// GPU model (simulate --partition); nil cuts the model evenly.
	Partition []int
	Set       map[string]bool
	Measured  MeasuredFlags
}

func (c *CostFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Cost, "cost-model", "unit", "unit, or lockstep (PyTorch's unit-time check), when no explicit or GPU cost is given")
	fs.Float64Var(&c.Fwd, "fwd", 0, "forward time T_F of one rank's share of the model")
	fs.Float64Var(&c.Bwd, "bwd", 0, "input-gradient time T_B (a full backward takes T_B + T_W)")
	fs.Float64Var(&c.WGrad, "wgrad", 0, "weight-gradient time T_W")
	fs.Float64Var(&c.Comm, "comm", 0, "time of one message between ranks")
	c.Presets.Register(fs, "model preset for the GPU timing model", " (with --model)")
	c.Measured.Register(fs)
}

// kind says which cost model the flags ask for: "gpu", "explicit",
// "measured", "unit" or "lockstep".
func (c *CostFlags) Kind() string {
	switch {
	case c.Measured.Given():
		return "measured"
	case c.Presets.Given():
		return "gpu"
	case c.Set["fwd"] || c.Set["bwd"] || c.Set["wgrad"] || c.Set["comm"]:
		return "explicit"
	}
	return c.Cost
}

// check names the cost flag that is wrong.
func (c *CostFlags) Check() error {
	explicit := c.Set["fwd"] || c.Set["bwd"] || c.Set["wgrad"] || c.Set["comm"]
	gpuOnly := c.Set["gpu"] || c.Set["link"] || c.Set["hardware"] || c.Set["microbatch-size"] || c.Set["seq-len"] || c.Set["efficiency"] ||
		c.Set["tp"] || c.Set["dp"] || c.Set["gpus-per-node"] || c.Set["node-link"] || c.Set["recompute"] || c.Set["sequence-parallel"] ||
		c.Set["distributed-optimizer"] || c.Set["overlap-grad-reduce"]
	switch {
	case c.Cost != "unit" && c.Cost != "lockstep":
		return fmt.Errorf("--cost-model must be unit or lockstep, got %q", c.Cost)
	case c.Set["cost-model"] && (explicit || c.Presets.Given()):
		return fmt.Errorf("--cost-model %s cannot be combined with explicit (--fwd ...) or GPU (--model) costs", c.Cost)
	case explicit && c.Presets.Given():
		return fmt.Errorf("explicit costs (--fwd, --bwd, --wgrad, --comm) and --model exclude each other")
	case gpuOnly && !c.Presets.Given():
		return fmt.Errorf("--gpu, --link, --hardware, --microbatch-size, --seq-len, --efficiency and the cluster flags (--tp, --dp, --gpus-per-node, --node-link, --recompute, --sequence-parallel, --distributed-optimizer, --overlap-grad-reduce) need --model")
	case explicit && (c.Fwd <= 0 || c.Bwd <= 0):
		return fmt.Errorf("explicit costs need --fwd and --bwd above 0, got %g and %g", c.Fwd, c.Bwd)
	case c.WGrad < 0 || c.Comm < 0:
		return fmt.Errorf("--wgrad and --comm must not be negative, got %g and %g", c.WGrad, c.Comm)
	case explicit && cost.CheckExplicit(c.Fwd, c.Bwd, c.WGrad, c.Comm) != nil:
		return cost.CheckExplicit(c.Fwd, c.Bwd, c.WGrad, c.Comm)
	case c.Measured.Given() && (c.Set["cost-model"] || explicit || c.Presets.Given()):
		return fmt.Errorf("measured costs (--costs, --profile) exclude --cost-model, explicit (--fwd ...) and GPU (--model) costs")
	}
	if c.Measured.Given() {
		return c.Measured.Check()
	}
	return c.Presets.Check()
}

// pricing is a cost model for one table, with the memory model and message
// sizes when the GPU model provides them.
type pricing struct {
	Cost   cost.Model
	Memory cost.Memory
	Sizer  cost.MessageSizer
	Share  cost.Stage // one rank's share of the model, for the formulas
	Name   string
	// MemoryLimit is the GPU's memory in bytes under the GPU model (0
	// otherwise): a rank whose peak exceeds it is marked, as tune does.
	MemoryLimit float64
	// Params and ActiveParams are the GPU model's total parameters and
	// those a token runs through (0 otherwise).
	Params, activeParams float64
}

// request is the pricing as the simulate request takes it.
func (p pricing) request() Pricing {
	return Pricing{Cost: p.Cost, Memory: p.Memory, Sizer: p.Sizer, Name: p.Name,
		MemoryLimit: p.MemoryLimit, Params: p.Params, ActiveParams: p.activeParams}
}

// pricingFor builds the cost model of the flags for table t (not for
// --cost-model lockstep, which times no cost model).
func (c *CostFlags) PricingFor(t *pipeline.Table) (pricing, error) {
	switch c.Kind() {
	case "unit":
		return pricing{Cost: cost.Unit{}, Share: cost.UnitShare(t), Name: "unit"}, nil
	case "measured":
		return c.Measured.PricingFor(t)
	case "explicit":
		share := cost.Stage{TF: c.Fwd, TB: c.Bwd, TW: c.WGrad}
		return pricing{Cost: cost.ForRankShare(t, share, c.Comm), Share: share,
			Name: fmt.Sprintf("explicit (T_F %g, T_B %g, T_W %g per rank share, %g per message)", c.Fwd, c.Bwd, c.WGrad, c.Comm)}, nil
	}
	cfg, err := c.Presets.Config()
	if err != nil {
		return pricing{}, err
	}
	var gm cost.StageModel
	if c.Partition != nil {
		if gm, err = cost.GPUForTablePartition(cfg, t, c.Partition); err != nil {
			return pricing{}, fault.Bad(fmt.Errorf("--partition: %w", err))
		}
	} else if gm, err = cost.GPUForTable(cfg, t); err != nil {
		return pricing{}, err
	}
	if err := c.Presets.FitsOneMicrobatch(cfg, gm, t.Stages()); err != nil {
		return pricing{}, err
	}
	share, err := cost.MeanShare(cfg, t.Ranks())
	if err != nil {
		return pricing{}, err
	}
	return pricing{Cost: gm, Memory: gm, Sizer: gm, Share: share, MemoryLimit: cfg.GPU.MemoryBytes,
		Params: cfg.Network.Params(), activeParams: cfg.Network.ActiveParams(),
		Name: fmt.Sprintf("GPU model (%s on %s, b=%d, s=%d%s; seconds)", c.Presets.ModelName(), hardwareName(cfg), c.Presets.MicrobatchSize, c.Presets.SeqLen, c.CostNote())}, nil
}

// unit names the time unit of the flags' cost model, for axis labels.
func (c *CostFlags) Unit() string {
	switch c.Kind() {
	case "gpu":
		return "s"
	case "explicit":
		return "cost units"
	}
	return "steps"
}

// costNote names the GPU model's options that are not the default.
func (c *CostFlags) CostNote() string {
	var note string
	if c.Presets.Flash {
		note += ", flash attention"
	}
	if c.Presets.ExpertParallel > 1 {
		note += fmt.Sprintf(", expert parallel %d", c.Presets.ExpertParallel)
	}
	if c.Partition != nil {
		parts := make([]string, len(c.Partition))
		for i, n := range c.Partition {
			parts[i] = strconv.Itoa(n)
		}
		note += ", partition " + strings.Join(parts, " ")
	}
	return note
}
