package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
)

// Run is one point of a spec's sweep: everything a run needs, with a
// stable ID (a hash of its canonical name) and seeds derived from the
// spec's seed and the run's parameters, never from its position.
type Run struct {
	// ID is the first 16 hex digits of the SHA-256 of Name.
	ID string
	// Name is the canonical "key=value ..." list of the run's parameters
	// (the root seed included); equal names mean equal runs.
	Name string
	// Index is the run's position in the expansion (for sharding only).
	Index int
	// Seed seeds the run's own streams (gradient noise, RPD sampling);
	// it is common to every method and step of a replicate (seeds).
	Seed uint64
	// DataSeed seeds the data set; it depends on the objective, its size
	// and the replicate only, so every method of a replicate sees the same
	// problem.
	DataSeed uint64

	Spec      string // the spec's name (its experiment key), a label only
	Measure   string
	Objective string
	N, D      int
	Batch     int
	// Noise is the logistic objective's gradient-noise σ (zero for the
	// other objectives).
	Noise  float64
	Method string
	// Stages is the pipeline stages S of a convergence, delays or
	// delay-profiles run; Ranks the pipeline ranks P of a schedules run.
	Stages     int
	Ranks      int
	Step       float64
	Delta      int // RPD's delay bound
	LocalSteps int // LocalSGD's H
	// TotalMicrobatches is the microbatches N over the run when fixed;
	// Budget is the time budget otherwise.
	TotalMicrobatches int
	Budget            float64
	Updates           int
	LogEvery          int
	LogPoints         int
	// DelayRows asks a delays run for its raw delays too (Spec.DelayRows).
	DelayRows bool
	Replicate int
	// Family is the schedule family of a schedules experiment, the
	// flush schedule that times a sync run's iterations, or the table an
	// asynchronous method replays (empty: PipeDream's grid).
	Family string
	// Microbatches is M, the microbatches of one iteration: a sync run's
	// (its flush), or the schedules a schedules run lays out.
	Microbatches int
	Cost         CostSpec
	Select       string

	// Corpus and BlocksPerStage are charlm's text and its GPT blocks per
	// middle stage.
	Corpus         string
	BlocksPerStage int
	// Embed and SeqLen are charlm's E and T; 0 means the default.
	Embed, SeqLen int
	// ValidationWindows is how many held-out windows charlm's
	// ValidationLoss reads, spread evenly over the held-out split: 0
	// means LMValidationWindows, the sample a sweep's records take; a
	// number at least the split's windows (pipelab train's
	// math.MaxInt32) reads them all (charlm_validation.go).
	ValidationWindows int
	// Optimizer is the per-stage optimizer; Accumulate (2bw), PipeMare's
	// warm-up T and decay D, and DC's λ parameterize the remedies.
	Optimizer      optim.Optimizer
	Accumulate     int
	PipeMareWarmup int
	PipeMareDecay  float64
	DCLambda       float64
	EFLambda       float64
	// TargetLoss is the spec's target_loss (0: none).
	TargetLoss float64
	// Cut lists the timelines whose shortest ends the run (Spec.Cut);
	// empty when the run ends with its own.
	Cut []CutRival
	// DelayModel is RPD's measured delay model (Delta.Model), or
	// DelayExact for the exact delays of the table it would replay; empty
	// for the paper's uniform delays up to Delta.
	DelayModel string
	// ExtendGrid is the spec's extend_grid: how many steps a grid may
	// grow by beyond each of its edges (expand_grid.go); GridLo and
	// GridHi are the smallest and largest step of the method's grid in
	// the spec, and Root the spec's seed, which the run's name ends with.
	ExtendGrid     int
	GridLo, GridHi float64
	Root           uint64

	// The fields below have no spec key; Go callers (pipelab train) set
	// them, and they enter the run's name only when set.

	// Replicas is LocalSGD's R (0: S).
	Replicas int
	// L2 is the logistic objective's λ (nil: objectives.DefaultL2).
	L2 *float64
	// Data and Labels are CSV files of a linear objective's examples and
	// targets (objectives.LoadCSV), read instead of generated data.
	Data, Labels string
	// Table is the table the method replays, an asynchronous method's
	// whole run or one iteration of sync, instead of a generated family.
	Table *pipeline.Table
	// DelayTrace is RPD's delays read from a trace file, K = N·S
	// iterations of them (optim.LoadDelayTrace).
	DelayTrace *optim.DelayTable
	// Progress, if not nil, is told how far the replay is (optim.Settings);
	// it is no part of the run's identity and changes nothing in it.
	Progress func(done, total int)
	// Record, if not nil, sees each logged record as the replay makes it
	// (pipelab serve streams them); like Progress, no part of the identity.
	Record func(optim.Record) error
	// Workers is how many goroutines the charlm objective spreads its
	// losses and products over (charlm's Config.Workers; 0 means 1, what a sweep's runs
	// take, their jobs already using the cores); like Progress, no part
	// of the identity: every count gives the same bits.
	Workers int
}

// methodSettings writes the settings only the run's method has, by their
// spec keys, for the runs table's method_settings (results.Run).
func (r Run) methodSettings() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := methodOf(r.Method)
	var kv []string
	if d.Takes(optim.ParamAccumulate) {
		kv = append(kv, "accumulate="+strconv.Itoa(r.Accumulate))
	}
	if d.Takes(optim.ParamPipeMare) {
		kv = append(kv, "pipemare_warmup="+strconv.Itoa(r.PipeMareWarmup), "pipemare_decay="+g(r.PipeMareDecay))
	}
	if d.Takes(optim.ParamDCLambda) {
		kv = append(kv, "dc_lambda="+g(r.DCLambda))
	}
	if d.Takes(optim.ParamEFLambda) {
		kv = append(kv, "ef_lambda="+g(r.EFLambda))
	}
	return strings.Join(kv, " ")
}

// DelayExact is the delay model of RPD replaying the exact delays of the
// table it would otherwise replay asynchronously (optim.Delays).
const DelayExact = "exact"

// Expand lists the runs of a validated spec in a fixed order.
func (s *Spec) Expand() []Run {
	var runs []Run
	add := func(r Run) {
		r.Spec = s.Name
		r.Measure = s.Measure
		r.Cost = s.Cost
		r.LogEvery, r.LogPoints = s.LogEvery, s.LogPoints
		r.Select = s.Select
		if objectiveOf(r.Objective).LM {
			r.Corpus, r.BlocksPerStage = s.Corpus, s.BlocksPerStage
			r.Embed, r.SeqLen = s.Embed, s.SeqLen
		}
		r.TargetLoss = s.TargetLoss
		r.DelayRows = s.DelayRows
		r.Root = s.Seed
		if r.Measure == Convergence {
			r.ExtendGrid = s.extendGrid()
		}
		r.name()
		r.seeds()
		r.Index = len(runs)
		runs = append(runs, r)
	}
	measureOf(s.Measure).expand(s, add)
	return runs
}

// name sets the run's Name from its parameters and Root, and the ID that
// derives from it.
func (r *Run) name() {
	r.Name = r.canonical(r.Root)
	sum := sha256.Sum256([]byte(r.Name))
	r.ID = hex.EncodeToString(sum[:8])
}

// seeds sets the run's DataSeed and Seed from Root and the replicate's
// parameters: common random numbers. Every method and step of one
// objective, data size, batch size and replicate draws the same data set,
// starting point, sample order and gradient-noise stream, so a difference
// between two methods of one replicate is theirs and not their draws'
// (docs/methods.md, "Seeds and significance"). A run without an objective
// (delays, schedules) seeds its streams from its own name.
func (r *Run) seeds() {
	r.DataSeed = deriveSeed(r.Root, "data", r.Objective, strconv.Itoa(r.N), strconv.Itoa(r.D), strconv.Itoa(r.Batch), strconv.Itoa(r.Replicate))
	if r.Objective == "" {
		sum := sha256.Sum256([]byte(r.Name))
		r.Seed = binary.LittleEndian.Uint64(sum[8:16])
		return
	}
	r.Seed = deriveSeed(r.DataSeed, "run")
}

func (s *Spec) delayMicrobatches(st int) []int {
	if len(s.TotalMicrobatches) > 0 {
		return s.TotalMicrobatches
	}
	return []int{s.TotalMicrobatchesPerStage * st}
}

// variant is one setting of a method's own parameters: RPD's δ,
// LocalSGD's H, sync's flush family and microbatches per iteration.
type variant struct {
	delta, h   int
	delayModel string
	family     string
	perIter    int
}

func (m MethodSpec) variants(st int) []variant {
	switch methodOf(m.Name).Replay {
	case optim.ReplaySampled:
		var out []variant
		seen := map[variant]bool{}
		for _, d := range m.Deltas {
			if v := (variant{delta: d.At(st), delayModel: d.Model}); !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		return out
	case optim.ReplayAveraging:
		out := make([]variant, len(m.LocalSteps))
		for i, h := range m.LocalSteps {
			out[i] = variant{h: h}
		}
		return out
	case optim.ReplayFlush:
		return []variant{{family: m.Family, perIter: m.perIteration(st)}}
	}
	return []variant{{family: m.Family}}
}

// remedy copies the method's optimizer and remedy parameters into r.
func (m MethodSpec) remedy(r *Run) {
	r.Optimizer = m.Optimizer.Settings()
	r.Accumulate, r.PipeMareWarmup = m.Accumulate, m.PipeMareWarmup
	if m.PipeMareDecay != nil {
		r.PipeMareDecay = *m.PipeMareDecay
	}
	if m.DCLambda != nil {
		r.DCLambda = *m.DCLambda
	}
	if m.EFLambda != nil {
		r.EFLambda = *m.EFLambda
	}
}

type size struct {
	n      int
	budget float64
}

func (s *Spec) sizes() []size {
	var out []size
	for _, n := range s.TotalMicrobatches {
		out = append(out, size{n: n})
	}
	for _, b := range s.Budget {
		out = append(out, size{budget: b})
	}
	return out
}

// noises lists the gradient-noise levels of objective o: the spec's for
// the logistic objective (objectives.DefaultNoise when it gives none) and
// for the random quadratic (none when it gives none), and a single zero
// for the others, which have no such noise.
func (s *Spec) noises(o string) []float64 {
	d := objectiveOf(o)
	switch {
	case !d.Noise:
		return []float64{0}
	case len(s.Noise) == 0:
		return []float64{d.DefaultNoise}
	}
	return s.Noise
}

// canonical writes the run's parameters, only those that apply, in a fixed
// order. Its words are frozen, whatever the spec keys are called now
// (docs/cli.md, "Run ids"): experiment= is the measure, family= the kind,
// batch= the batch size, budget= the time budget, cost= the cost label;
// renaming one would change every run id (TestCanonicalNamesFrozen).
func (r Run) canonical(seed uint64) string {
	var b strings.Builder
	kv := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + v)
	}
	num := strconv.Itoa
	kv("experiment", r.Measure)
	if r.Objective != "" {
		kv("objective", r.Objective)
		kv("n", num(r.N))
		kv("d", num(r.D))
		kv("batch", num(r.Batch))
		if d := objectiveOf(r.Objective); d.Noise && r.Noise != d.DefaultNoise {
			// Only then, so that runs at the default σ (none for the
			// quadratic) keep their ids.
			kv("noise", strconv.FormatFloat(r.Noise, 'g', -1, 64))
		}
	}
	if objectiveOf(r.Objective).LM {
		r.charLMName(kv)
	}
	if r.Family != "" {
		kv("family", r.Family)
	}
	if r.Method != "" {
		kv("method", r.Method)
	}
	kv("S", num(r.frozenS()))
	d := methodOf(r.Method)
	if d.Replay == optim.ReplaySampled {
		kv("delta", num(r.Delta))
		if r.DelayModel != "" {
			kv("delay_model", r.DelayModel)
		}
	}
	if d.Replay == optim.ReplayAveraging {
		kv("H", num(r.LocalSteps))
		if r.Replicas != 0 {
			kv("R", num(r.Replicas))
		}
	}
	if r.L2 != nil {
		kv("l2", strconv.FormatFloat(*r.L2, 'g', -1, 64))
	}
	if r.Data != "" {
		kv("data", r.Data)
		kv("labels", r.Labels)
	}
	if d.Replay == optim.ReplayFlush {
		kv("per_iteration", num(r.Microbatches))
	}
	// The keys below appear only where they apply, so that the runs of
	// specs that do not use them keep their ids.
	// (ef's key order, A then lambda, is the one it had.)
	if d.Takes(optim.ParamAccumulate) {
		kv("A", num(r.Accumulate))
	}
	if d.Takes(optim.ParamPipeMare) {
		kv("T", num(r.PipeMareWarmup))
		kv("D", strconv.FormatFloat(r.PipeMareDecay, 'g', -1, 64))
	}
	if d.Takes(optim.ParamDCLambda) {
		kv("lambda", strconv.FormatFloat(r.DCLambda, 'g', -1, 64))
	}
	if d.Takes(optim.ParamEFLambda) {
		kv("lambda", strconv.FormatFloat(r.EFLambda, 'g', -1, 64))
	}
	if l := r.Optimizer.Label(); r.Objective != "" && l != string(optim.SGD) {
		kv("optimizer", strings.ReplaceAll(l, " ", "/"))
	}
	if r.TargetLoss != 0 {
		kv("target_loss", strconv.FormatFloat(r.TargetLoss, 'g', -1, 64))
	}
	if r.Step != 0 {
		kv("step", strconv.FormatFloat(r.Step, 'g', -1, 64))
	}
	if r.Budget != 0 {
		kv("budget", strconv.FormatFloat(r.Budget, 'g', -1, 64))
	} else {
		kv("N", num(r.frozenN()))
	}
	if r.Updates != 0 {
		kv("K", num(r.Updates))
	}
	if r.LogEvery != 0 {
		kv("log_every", num(r.LogEvery))
	}
	if r.LogPoints != 0 {
		kv("log_points", num(r.LogPoints))
	}
	if r.DelayRows {
		// Only then, so that every run without the raw delays keeps its id.
		kv("delay_rows", "true")
	}
	if len(r.Cut) > 0 {
		kv("cut", cutLabel(r.Cut))
	}
	kv("cost", r.Cost.label())
	if r.Objective != "" {
		kv("replicate", num(r.Replicate))
	}
	kv("seed", strconv.FormatUint(seed, 10))
	return b.String()
}

// frozenS is the count the frozen word S= holds: the stages S, or a
// schedules run's ranks P (its key was stages when the names froze).
func (r Run) frozenS() int {
	if r.Measure == Schedules {
		return r.Ranks
	}
	return r.Stages
}

// frozenN is the count the frozen word N= holds: the microbatches N over
// the run, or a schedules run's M of one iteration (likewise).
func (r Run) frozenN() int {
	if r.Measure == Schedules {
		return r.Microbatches
	}
	return r.TotalMicrobatches
}

func (c CostSpec) label() string {
	if !c.desc().GPU {
		return c.CostModel
	}
	label := fmt.Sprintf("gpu/%s/%s/b%d/s%d", c.modelLabel(), c.deviceLabel("/"), c.Microbatch, c.Sequence)
	if c.FlashAttention {
		label += "/flash" // only then, so that other runs keep their ids
	}
	if c.Efficiency != 0 {
		label += fmt.Sprintf("/eff%g", c.Efficiency) // likewise
	}
	if c.ExpertParallel > 1 {
		label += fmt.Sprintf("/ep%d", c.ExpertParallel) // likewise
	}
	for _, part := range c.clusterLabel() {
		label += "/" + part // likewise
	}
	return label
}

// deriveSeed hashes the root seed with named parts into a 64-bit seed.
func deriveSeed(root uint64, parts ...string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], root)
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return binary.LittleEndian.Uint64(h.Sum(nil)[:8])
}
