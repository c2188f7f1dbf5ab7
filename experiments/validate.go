package experiments

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// KnownObjectives and KnownMethods are the names a spec may use; the
// methods are optim's, which NewMethod builds by name.
var (
	KnownObjectives = objectiveNames()
	KnownMethods    = optim.Methods
	knownCostModels = specCostModels()
	knownRules      = []string{BestFinal, Stable, BestFinalTraining, FastestToTarget}
	knownMeasures   = []string{Convergence, DelayStats, Schedules, DelayProfiles}
)

// validator collects the first problem of a spec with the line of the key
// it concerns, found in the YAML tree when there is one.
type validator struct {
	root *yaml.Node
}

// fail returns a SpecError for the key at path ("methods", 1, "step_sizes").
func (v validator) fail(msg string, path ...any) error {
	return &SpecError{Line: v.line(path...), Key: keyName(path), Msg: msg}
}

func keyName(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		}
	}
	return b.String()
}

// line finds the line of the deepest node of path that exists (the key's
// line for a mapping entry), or 0 without a tree.
func (v validator) line(path ...any) int {
	if v.root == nil {
		return 0
	}
	n := v.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return line
			}
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					line = n.Content[i].Line
					n = n.Content[i+1]
					found = true
					break
				}
			}
			if !found {
				return line
			}
		case int:
			if n.Kind != yaml.SequenceNode || p >= len(n.Content) {
				return line
			}
			n = n.Content[p]
			line = n.Line
		}
	}
	return line
}

// node returns the YAML node of the key at path, nil when the spec leaves
// it out: a key given as 0 is told from one left out (and then filled by
// setDefaults) by its node.
func (v validator) node(path ...any) *yaml.Node {
	if v.root == nil {
		return nil
	}
	n := v.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		key, ok := p.(string)
		if !ok || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// validate fills the spec's defaults (setDefaults) and checks it; root,
// the spec's YAML tree, gives errors their lines (nil: none).
func (s *Spec) validate(root *yaml.Node) error {
	s.setDefaults()
	return s.check(root)
}

// check checks a spec whose defaults are filled, and changes nothing.
func (s *Spec) check(root *yaml.Node) error {
	v := validator{root: root}
	if err := s.checkName(v); err != nil {
		return err
	}
	if !slices.Contains(knownMeasures, s.Measure) {
		return v.fail(fmt.Sprintf("unknown measure %q (known: %s)", s.Measure, strings.Join(knownMeasures, ", ")), "measure")
	}
	if s.Seeds < 0 {
		return v.fail("must be at least 1", "seeds")
	}
	if err := s.checkCountKeys(v); err != nil {
		return err
	}
	if !slices.Contains(knownCostModels, s.Cost.CostModel) {
		return v.fail(fmt.Sprintf("unknown cost model %q (known: %s)", s.Cost.CostModel, strings.Join(knownCostModels, ", ")), "cost", "cost_model")
	}
	if err := s.Cost.validate(v); err != nil {
		return err
	}
	if s.LogEvery < 0 {
		return v.fail("must not be negative", "log_every")
	}
	if s.LogPoints < 0 {
		return v.fail("must not be negative", "log_points")
	}
	if s.LogEvery != 0 && s.LogPoints != 0 {
		return v.fail("given with log_every: give one of the two", "log_points")
	}
	if s.Measure != Convergence {
		// Keys of convergence runs would be ignored: refuse them.
		for _, k := range []struct {
			key string
			set bool
		}{{"objectives", len(s.Objectives) > 0}, {"n", s.N != 0}, {"d", s.D != 0}, {"batch_size", s.Batch != 0},
			{"methods", len(s.Methods) > 0 && s.Measure != DelayProfiles}, {"time_budget", len(s.Budget) > 0}, {"target_loss", s.TargetLoss != 0},
			{"l2", s.L2 != nil}} {
			if k.set {
				return v.fail("does not apply to measure "+s.Measure, k.key)
			}
		}
	}
	if s.DelayRows && s.Measure != DelayStats {
		return v.fail("applies to measure delays only", "delay_rows")
	}
	if err := s.validateExtendGrid(v); err != nil {
		return err
	}
	if err := s.refuseCharLMKeys(v); err != nil {
		return err
	}
	if err := measureOf(s.Measure).validate(s, v); err != nil {
		return err
	}
	if err := s.checkSizes(v); err != nil {
		return err
	}
	if err := s.checkFits(v); err != nil {
		return err
	}
	return s.checkDuplicates(v)
}

// validateDelays checks a delays experiment.
func (s *Spec) validateDelays(v validator) error {
	if s.TotalMicrobatchesPerStage < 0 {
		return v.fail("must be at least 1", "total_microbatches_per_stage")
	}
	return checkPositive(v, "total_microbatches", s.TotalMicrobatches)
}

func (s *Spec) validateSchedules(v validator) error {
	if len(s.Families) == 0 {
		return v.fail("no schedule families given", "kinds")
	}
	known := ScheduleKinds()
	for i, f := range s.Families {
		if !slices.Contains(known, f) {
			return v.fail(fmt.Sprintf("unknown schedule family %q (known: %s)", f, strings.Join(known, ", ")), "kinds", i)
		}
	}
	if len(s.Microbatches) == 0 {
		return v.fail("no microbatch counts given", "microbatches")
	}
	return checkPositive(v, "microbatches", s.Microbatches)
}

func (s *Spec) validateConvergence(v validator) error {
	if len(s.Objectives) == 0 {
		return v.fail("no objectives given", "objectives")
	}
	for i, o := range s.Objectives {
		if !slices.Contains(KnownObjectives, o) {
			return v.fail(fmt.Sprintf("unknown objective %q (known: %s)", o, strings.Join(KnownObjectives, ", ")), "objectives", i)
		}
		if !objectiveOf(o).LM && (s.N < 1 || s.D < 1) {
			return v.fail(fmt.Sprintf("objective %s needs n and d of at least 1", o), "objectives", i)
		}
		if objectiveOf(o).LM {
			if err := s.validateCharLM(v); err != nil {
				return err
			}
			for j, st := range s.Stages {
				if st < 3 {
					return v.fail(fmt.Sprintf("charlm needs at least 3 stages, got %d", st), "stages", j)
				}
			}
		}
	}
	for i, sigma := range s.Noise {
		if !(sigma >= 0) || math.IsInf(sigma, 0) {
			return v.fail(fmt.Sprintf("noise %v is not a finite σ of at least 0", sigma), "noise", i)
		}
	}
	if len(s.Noise) > 0 && slices.ContainsFunc(s.Objectives, func(o string) bool { return !objectiveOf(o).Noise }) {
		return v.fail("applies to the logistic and quadratic objectives only", "noise")
	}
	if s.L2 != nil {
		if !slices.Contains(s.Objectives, "logistic") {
			return v.fail("applies to the logistic objective only", "l2")
		}
		if l := *s.L2; !(l >= 0) || math.IsInf(l, 0) {
			return v.fail(fmt.Sprintf("λ = %v is not a finite weight of at least 0", l), "l2")
		}
	}
	if s.Batch < 1 {
		return v.fail("must be at least 1", "batch_size")
	}
	if s.N > 0 && s.Batch > s.N {
		return v.fail(fmt.Sprintf("batch_size %d exceeds n = %d", s.Batch, s.N), "batch_size")
	}
	for _, st := range s.Stages {
		if s.D > 0 && st > s.D {
			return v.fail(fmt.Sprintf("%d stages exceed d = %d coordinates", st, s.D), "stages")
		}
	}
	switch {
	case len(s.TotalMicrobatches) > 0 && len(s.Budget) > 0:
		return v.fail("set total_microbatches or time_budget, not both", "time_budget")
	case len(s.TotalMicrobatches) == 0 && len(s.Budget) == 0:
		return v.fail("set total_microbatches or time_budget", "total_microbatches")
	}
	if err := checkPositive(v, "total_microbatches", s.TotalMicrobatches); err != nil {
		return err
	}
	for i, b := range s.Budget {
		if !(b > 0) || math.IsInf(b, 0) {
			return v.fail(fmt.Sprintf("time_budget %v is not a positive time", b), "time_budget", i)
		}
	}
	if !slices.Contains(knownRules, s.Select) {
		return v.fail(fmt.Sprintf("unknown selection rule %q (known: %s)", s.Select, strings.Join(knownRules, ", ")), "selection_rule")
	}
	if len(s.Methods) == 0 {
		return v.fail("no methods given", "methods")
	}
	if !(s.TargetLoss >= 0) || math.IsInf(s.TargetLoss, 0) {
		return v.fail(fmt.Sprintf("target loss %v is not a non-negative number", s.TargetLoss), "target_loss")
	}
	if s.Select == FastestToTarget && s.TargetLoss == 0 {
		return v.fail(fmt.Sprintf("selection rule %s ranks steps by the time to target_loss, which is not set", FastestToTarget), "selection_rule")
	}
	if err := s.validateCut(v); err != nil {
		return err
	}
	firstSync := -1
	first := map[string]int{} // method and optimizer → its first entry
	for i := range s.Methods {
		m := &s.Methods[i]
		if err := m.validate(v, i); err != nil {
			return err
		}
		// The runs table records the method, its own settings (2BW's A,
		// PipeMare's T and D, DC's λ, ef's A and λ: method_settings) and the
		// optimizer: two entries that agree in all three would give rows
		// that selection and the plots could not tell apart.
		var r Run
		r.Method = m.Name
		m.remedy(&r)
		k := m.Name + "/" + r.methodSettings() + "/" + m.Optimizer.Settings().Label()
		if j, dup := first[k]; dup {
			what := m.Name
			if ms := r.methodSettings(); ms != "" {
				what += " (" + ms + ")"
			}
			return v.fail(fmt.Sprintf("%s with optimizer %s is given twice (first as methods[%d], line %d)",
				what, m.Optimizer.Settings().Label(), j, v.line("methods", j, "name")), "methods", i, "name")
		}
		first[k] = i
		if methodOf(m.Name).Replay != optim.ReplayFlush {
			continue
		}
		if err := m.validateFlush(v, i); err != nil {
			return err
		}
		// The runs table has no column for the flush family or the
		// iteration's microbatches, so sync entries (one per optimizer)
		// must share them, or their rows could not be told apart.
		if firstSync < 0 {
			firstSync = i
			continue
		}
		if f := s.Methods[firstSync]; f.Family != m.Family || f.Microbatches != m.Microbatches {
			return v.fail(fmt.Sprintf("sync entries differ in kind or microbatches from methods[%d] (line %d); give one flush per spec",
				firstSync, v.line("methods", firstSync, "name")), "methods", i, "name")
		}
	}
	return s.validateAsyncFamilies(v)
}

// ScheduleKinds lists the schedule families a schedules experiment's kinds
// may name: every family of the pipeline registry ("pipelab kinds" adds
// zb-auto, which the command line builds from costs).
func ScheduleKinds() []string {
	var out []string
	for _, f := range pipeline.Families() {
		out = append(out, f.Name)
	}
	return out
}

// DefaultFlush is the flush schedule that times a sync iteration when the
// spec names none.
const DefaultFlush = "1f1b"

// SyncFamilies lists the schedule families a sync method can name: those
// that generate a flush schedule with one stage per rank, the pipeline the
// other methods run on (a family that puts several stages on a rank would
// need an objective with more blocks than ranks).
func SyncFamilies() []string {
	var out []string
	for _, f := range pipeline.Families() {
		if flushProblem(f.Name, 4, 4) == nil {
			out = append(out, f.Name)
		}
	}
	return out
}

// flushProblem says why family cannot time sync iterations of n
// microbatches on s stages, or returns nil.
func flushProblem(family string, s, n int) error {
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: s, Microbatches: n})
	switch {
	case err != nil:
		return fmt.Errorf("%s does not generate a flush schedule of %d microbatches on %d ranks: %w", family, n, s, err)
	case tab.Update != pipeline.Flush:
		return fmt.Errorf("%s is not a flush schedule (its update rule is %v)", family, tab.Update)
	case tab.Stages() != s || tab.Ranks() != s || tab.Routes != nil:
		return fmt.Errorf("%s puts %d stages on %d ranks; sync needs one stage per rank", family, tab.Stages(), tab.Ranks())
	}
	return nil
}

// validateFlush checks that sync's family times flush iterations with one
// stage per rank.
func (m *MethodSpec) validateFlush(v validator, i int) error {
	if m.Microbatches < 0 {
		return v.fail(fmt.Sprintf("%d is below 1", m.Microbatches), "methods", i, "microbatches")
	}
	known := SyncFamilies()
	if !slices.Contains(known, m.Family) {
		why := "no such family"
		if slices.ContainsFunc(pipeline.Families(), func(f pipeline.Family) bool { return f.Name == m.Family }) {
			why = flushProblem(m.Family, 4, 4).Error()
		}
		return v.fail(fmt.Sprintf("sync cannot use schedule family %q: %s (sync takes %s)", m.Family, why, strings.Join(known, ", ")),
			"methods", i, "kind")
	}
	// The sync families generate every shape of at least one rank and one
	// microbatch (TestSyncFamiliesTakeEveryShape), so the spec's shapes
	// need no schedule built to be checked; checkSizes bounds their size.
	return nil
}

// perIteration is sync's microbatch count per iteration for st stages.
func (m MethodSpec) perIteration(st int) int {
	if m.Microbatches > 0 {
		return m.Microbatches
	}
	return st
}

func (m *MethodSpec) validate(v validator, i int) error {
	if !slices.Contains(KnownMethods, m.Name) {
		return v.fail(fmt.Sprintf("unknown method %q (known: %s)", m.Name, strings.Join(KnownMethods, ", ")), "methods", i, "name")
	}
	if err := m.validateRemedy(v, i); err != nil {
		return err
	}
	if err := m.Optimizer.validate(v, "methods", i, "optimizer"); err != nil {
		return err
	}
	g := m.Steps
	switch {
	case len(g.Pow2) > 0 && len(g.Values) > 0:
		return v.fail("set values or pow2, not both", "methods", i, "step_sizes")
	case len(g.Pow2) > 0 && len(g.Pow2) != 2:
		return v.fail(fmt.Sprintf("pow2 needs two exponents [from, to], got %d", len(g.Pow2)), "methods", i, "step_sizes", "pow2")
	case len(g.Pow2) == 2 && g.Pow2[0] > g.Pow2[1]:
		return v.fail(fmt.Sprintf("empty grid: 2^%d..2^%d", g.Pow2[0], g.Pow2[1]), "methods", i, "step_sizes", "pow2")
	case len(g.Pow2) == 2 && (g.Pow2[0] < -60 || g.Pow2[1] > 60):
		return v.fail("exponents must lie in -60..60", "methods", i, "step_sizes", "pow2")
	case len(g.Pow2) == 0 && len(g.Values) == 0:
		return v.fail("empty step-size grid", "methods", i, "step_sizes")
	}
	for j, x := range g.Values {
		if !(x > 0) || math.IsInf(x, 0) {
			return v.fail(fmt.Sprintf("step size %v is not positive", x), "methods", i, "step_sizes", "values", j)
		}
	}
	desc := methodOf(m.Name)
	if desc.Replay == optim.ReplaySampled {
		for j, d := range m.Deltas {
			if !d.Paper && d.Value < 0 {
				return v.fail(fmt.Sprintf("delay bound %d is negative", d.Value), "methods", i, "deltas", j)
			}
		}
	} else if len(m.Deltas) > 0 {
		return v.fail("only rpd takes delay bounds", "methods", i, "deltas")
	}
	if desc.Replay == optim.ReplayAveraging {
		if len(m.LocalSteps) == 0 {
			return v.fail("localsgd needs local_steps (H)", "methods", i, "local_steps")
		}
		for j, h := range m.LocalSteps {
			if h < 1 {
				return v.fail(fmt.Sprintf("H = %d is below 1", h), "methods", i, "local_steps", j)
			}
		}
	} else if len(m.LocalSteps) > 0 {
		return v.fail("only localsgd takes local_steps", "methods", i, "local_steps")
	}
	if desc.Replay != optim.ReplayFlush {
		if m.Family != "" && !desc.Async() {
			return v.fail("only sync and the asynchronous methods take a schedule family", "methods", i, "kind")
		}
		if m.Microbatches != 0 {
			return v.fail("only sync takes microbatches (M of one iteration)", "methods", i, "microbatches")
		}
	}
	return nil
}

func (c *CostSpec) validate(v validator) error {
	if c.desc().Unit {
		if _, err := cost.LookupNetwork(c.Preset); c.Preset != "" && err != nil {
			return v.fail(fmt.Sprintf("%v; the cost model is cost_model (%s)", err, strings.Join(knownCostModels, ", ")), "cost", "model")
		}
		for _, k := range []struct {
			key string
			set bool
		}{{"model", c.Preset != ""}, {"model_config", c.ModelConfig != ""}, {"gpu", c.GPU != ""}, {"link", c.Link != ""},
			{"hardware", c.Hardware != ""}, {"microbatch_size", c.Microbatch != 0}, {"seq_len", c.Sequence != 0},
			{"flash_attention", c.FlashAttention}, {"efficiency", c.Efficiency != 0}, {"expert_parallel", c.ExpertParallel != 0},
			{"tp", c.TP != 0}, {"dp", c.DP != 0}, {"recompute", c.Recompute != ""}, {"sequence_parallel", c.SequenceParallel},
			{"distributed_optimizer", c.DistributedOptimizer}, {"overlap_grad_reduce", c.OverlapGradReduce},
			{"gpus_per_node", c.GPUsPerNode != 0}, {"node_link", c.NodeLink != ""}} {
			if k.set {
				return v.fail("needs cost_model: gpu (the unit cost model times every action one step)", "cost", k.key)
			}
		}
		return nil
	}
	if c.ModelConfig != "" {
		if c.Preset != "" {
			return v.fail("model and model_config exclude each other", "cost", "model_config")
		}
		if _, err := cost.ReadHFConfig(c.configPath()); err != nil {
			return v.fail(err.Error(), "cost", "model_config")
		}
	}
	if c.Hardware != "" {
		if c.GPU != "" || c.Link != "" {
			return v.fail("hardware gives the GPU and the links: drop gpu and link", "cost", "hardware")
		}
		if _, err := cost.ReadHardware(c.hardwareFile()); err != nil {
			return v.fail(err.Error(), "cost", "hardware")
		}
	}
	if _, err := cost.LookupNetwork(c.Preset); c.ModelConfig == "" && err != nil {
		return v.fail(err.Error(), "cost", "model")
	}
	if _, err := cost.LookupGPU(c.GPU); c.Hardware == "" && err != nil {
		return v.fail(err.Error(), "cost", "gpu")
	}
	if _, err := cost.LookupLink(c.Link); c.Hardware == "" && err != nil {
		return v.fail(err.Error(), "cost", "link")
	}
	if c.Microbatch < 1 || c.Sequence < 1 {
		return v.fail("microbatch_size and seq_len must be at least 1", "cost")
	}
	// tp and dp left out are 1; given, they are counts of GPUs, as --tp and
	// --dp are, and 0 is refused as the flags refuse it.
	for _, key := range []string{"tp", "dp"} {
		var given int
		if n := v.node("cost", key); n != nil && n.Decode(&given) == nil && given == 0 {
			return v.fail("0 is below 1 (leave it out for 1)", "cost", key)
		}
	}
	if !(c.Efficiency >= 0 && c.Efficiency <= 1) {
		return v.fail(fmt.Sprintf("%g is outside (0, 1] (a share of the GPU's peak; 0 or none takes the hardware file's, or %g)", c.Efficiency, cost.DefaultEfficiency), "cost", "efficiency")
	}
	if _, err := c.GPUConfig(); err != nil {
		var bad *CostKeyError
		if errors.As(err, &bad) {
			return v.fail(bad.Err.Error(), "cost", bad.Key)
		}
		return v.fail(err.Error(), "cost")
	}
	return nil
}

func checkPositive(v validator, key string, xs []int) error {
	for i, x := range xs {
		if x < 1 {
			return v.fail(strconv.Itoa(x)+" is below 1", key, i)
		}
	}
	return nil
}

// validateRemedy checks the parameters of 2bw, pipemare, dc, dc-a and ef, each
// refused on any other method.
func (m *MethodSpec) validateRemedy(v validator, i int) error {
	for _, k := range []struct {
		key, only string // only: who takes the key, as the message says it
		param     optim.Param
		set       bool
	}{{"accumulate", "2bw and ef take", optim.ParamAccumulate, m.Accumulate != 0},
		{"pipemare_warmup", "pipemare takes", optim.ParamPipeMare, m.PipeMareWarmup != 0},
		{"pipemare_decay", "pipemare takes", optim.ParamPipeMare, m.PipeMareDecay != nil},
		{"dc_lambda", "dc and dc-a take", optim.ParamDCLambda, m.DCLambda != nil},
		{"ef_lambda", "ef takes", optim.ParamEFLambda, m.EFLambda != nil}} {
		if k.set && !methodOf(m.Name).Takes(k.param) {
			return v.fail("only "+k.only+" "+k.key, "methods", i, k.key)
		}
	}
	d := methodOf(m.Name)
	if d.Takes(optim.ParamAccumulate) && m.Accumulate < 0 {
		return v.fail(fmt.Sprintf("A = %d is below 1 (0 means S)", m.Accumulate), "methods", i, "accumulate")
	}
	if d.Takes(optim.ParamEFLambda) {
		if l := *m.EFLambda; !(l >= 0) || math.IsInf(l, 0) {
			return v.fail(fmt.Sprintf("λ = %v is not a non-negative number", l), "methods", i, "ef_lambda")
		}
	}
	if d.Takes(optim.ParamPipeMare) {
		if m.PipeMareWarmup < 0 {
			return v.fail(fmt.Sprintf("T = %d is negative", m.PipeMareWarmup), "methods", i, "pipemare_warmup")
		}
		if d := *m.PipeMareDecay; !(d >= 0 && d < 1) {
			return v.fail(fmt.Sprintf("D = %v is not in [0, 1)", d), "methods", i, "pipemare_decay")
		}
	}
	if d.Takes(optim.ParamDCLambda) {
		if l := *m.DCLambda; !(l >= 0) || math.IsInf(l, 0) {
			return v.fail(fmt.Sprintf("λ = %v is not a non-negative number", l), "methods", i, "dc_lambda")
		}
	}
	return nil
}

// andList spells names as "a, b and c".
func andList(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}

// validate checks an optimizer: a known name, and only the parameters its
// algorithm uses.
func (o OptimizerSpec) validate(v validator, path ...any) error {
	name := o.Name
	if name == "" {
		name = string(optim.SGD)
	}
	if !slices.Contains(optim.Algorithms, optim.Algorithm(name)) {
		known := make([]string, len(optim.Algorithms))
		for j, a := range optim.Algorithms {
			known[j] = string(a)
		}
		return v.fail(fmt.Sprintf("unknown optimizer %q (known: %s)", name, strings.Join(known, ", ")), path...)
	}
	uses := map[string][]string{"momentum": {"momentum", "nesterov", "muon"}, "beta1": {"adam", "adamw", "lion", "muon"},
		"beta2": {"adam", "adamw", "lion", "muon"}, "eps": {"adam", "adamw", "muon"}, "weight_decay": {"adamw", "lion", "muon"},
		"muon_scale": {"muon"}}
	for _, k := range []struct {
		key string
		set bool
	}{{"momentum", o.Momentum != nil}, {"beta1", o.Beta1 != nil}, {"beta2", o.Beta2 != nil}, {"eps", o.Eps != nil},
		{"weight_decay", o.WeightDecay != nil}, {"muon_scale", o.MuonScale != ""}} {
		if k.set && !slices.Contains(uses[k.key], name) {
			return v.fail(fmt.Sprintf("%s applies to %s, not %s", k.key, andList(uses[k.key]), name), append(path, k.key)...)
		}
	}
	if err := o.Settings().Validate(); err != nil {
		return v.fail(strings.TrimPrefix(err.Error(), optim.ErrSettings.Error()+": "), path...)
	}
	return nil
}
