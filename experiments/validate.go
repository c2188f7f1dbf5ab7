package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"pipelab/pipeline"
	"pipelab/pipeline/cost"
)

// KnownObjectives and KnownMethods are the names a spec may use.
var (
	KnownObjectives = []string{"quadratic", "tridiagonal", "logistic", "charlm"}
	KnownMethods    = []string{"pipedream", "rpd", "localsgd", "sync"}
	knownCostModels = []string{"unit", "gpu"}
	knownRules      = []string{BestFinal, Stable}
	knownKinds      = []string{Convergence, DelayStats, Schedules}
)

// validator collects the first problem of a spec with the line of the key
// it concerns, found in the YAML tree when there is one.
type validator struct {
	root *yaml.Node
}

// fail returns a SpecError for the key at path ("methods", 1, "steps").
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

func (s *Spec) validate(root *yaml.Node) error {
	v := validator{root: root}
	if s.Experiment == "" {
		s.Experiment = Convergence
	}
	if !slices.Contains(knownKinds, s.Experiment) {
		return v.fail(fmt.Sprintf("unknown experiment %q (known: %s)", s.Experiment, strings.Join(knownKinds, ", ")), "experiment")
	}
	if s.Seeds == 0 {
		s.Seeds = 1
	}
	if s.Seeds < 0 {
		return v.fail("must be at least 1", "seeds")
	}
	if len(s.Stages) == 0 {
		return v.fail("no stage counts given", "stages")
	}
	for i, st := range s.Stages {
		if st < 2 {
			return v.fail(fmt.Sprintf("stage count %d is below 2", st), "stages", i)
		}
	}
	if s.Cost.Model == "" {
		s.Cost.Model = "unit"
	}
	if !slices.Contains(knownCostModels, s.Cost.Model) {
		return v.fail(fmt.Sprintf("unknown cost model %q (known: %s)", s.Cost.Model, strings.Join(knownCostModels, ", ")), "cost", "model")
	}
	if err := s.Cost.validate(v); err != nil {
		return err
	}
	if s.LogEvery < 0 {
		return v.fail("must not be negative", "log_every")
	}
	if s.Experiment != Convergence {
		// Keys of convergence runs would be ignored: refuse them.
		for _, k := range []struct {
			key string
			set bool
		}{{"objectives", len(s.Objectives) > 0}, {"n", s.N != 0}, {"d", s.D != 0}, {"batch", s.Batch != 0},
			{"methods", len(s.Methods) > 0}, {"budget", len(s.Budget) > 0}} {
			if k.set {
				return v.fail("does not apply to "+s.Experiment+" experiments", k.key)
			}
		}
	}
	switch s.Experiment {
	case Convergence:
		return s.validateConvergence(v)
	case DelayStats:
		return s.validateDelays(v)
	case Schedules:
		return s.validateSchedules(v)
	}
	return nil
}

// validateDelays checks a delays experiment; without microbatch counts it
// measures N = 10S, the reference's setting (docs/reference.md §1.3).
func (s *Spec) validateDelays(v validator) error {
	if s.MicrobatchesPerStage == 0 && len(s.Microbatches) == 0 {
		s.MicrobatchesPerStage = 10
	}
	if s.MicrobatchesPerStage < 0 {
		return v.fail("must be at least 1", "microbatches_per_stage")
	}
	return checkPositive(v, "microbatches", s.Microbatches)
}

func (s *Spec) validateSchedules(v validator) error {
	if len(s.Families) == 0 {
		return v.fail("no schedule families given", "families")
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
		if o != "charlm" && (s.N < 1 || s.D < 1) {
			return v.fail(fmt.Sprintf("objective %s needs n and d of at least 1", o), "objectives", i)
		}
		if o == "charlm" {
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
	if len(s.Noise) > 0 && slices.ContainsFunc(s.Objectives, func(o string) bool { return o != "logistic" }) {
		return v.fail("applies to the logistic objective only", "noise")
	}
	if s.Batch < 1 {
		return v.fail("must be at least 1", "batch")
	}
	if s.N > 0 && s.Batch > s.N {
		return v.fail(fmt.Sprintf("batch %d exceeds n = %d", s.Batch, s.N), "batch")
	}
	for _, st := range s.Stages {
		if s.D > 0 && st > s.D {
			return v.fail(fmt.Sprintf("%d stages exceed d = %d coordinates", st, s.D), "stages")
		}
	}
	switch {
	case len(s.Microbatches) > 0 && len(s.Budget) > 0:
		return v.fail("set microbatches or budget, not both", "budget")
	case len(s.Microbatches) == 0 && len(s.Budget) == 0:
		return v.fail("set microbatches or budget", "microbatches")
	}
	if err := checkPositive(v, "microbatches", s.Microbatches); err != nil {
		return err
	}
	for i, b := range s.Budget {
		if !(b > 0) || math.IsInf(b, 0) {
			return v.fail(fmt.Sprintf("budget %v is not a positive time", b), "budget", i)
		}
	}
	if s.Select == "" {
		s.Select = "best-final"
	}
	if !slices.Contains(knownRules, s.Select) {
		return v.fail(fmt.Sprintf("unknown selection rule %q (known: %s)", s.Select, strings.Join(knownRules, ", ")), "select")
	}
	if len(s.Methods) == 0 {
		return v.fail("no methods given", "methods")
	}
	if err := s.validateCut(v); err != nil {
		return err
	}
	firstSync := -1
	for i := range s.Methods {
		m := &s.Methods[i]
		if err := m.validate(v, i); err != nil {
			return err
		}
		if m.Name != "sync" {
			continue
		}
		// The runs table has no column for the flush family or the
		// iteration's microbatches, so two sync entries would give rows
		// that step-size selection and the plots could not tell apart.
		if firstSync >= 0 {
			return v.fail(fmt.Sprintf("sync is given twice (first as methods[%d], line %d); give one sync entry per spec",
				firstSync, v.line("methods", firstSync, "name")), "methods", i, "name")
		}
		firstSync = i
		if err := m.validateFlush(v, i, s.Stages); err != nil {
			return err
		}
	}
	return nil
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

// validateFlush fills in sync's defaults and checks that its family times
// an iteration for every stage count of the spec.
func (m *MethodSpec) validateFlush(v validator, i int, stages []int) error {
	if m.Family == "" {
		m.Family = DefaultFlush
	}
	if m.MicrobatchesPerIteration < 0 {
		return v.fail(fmt.Sprintf("%d is below 1", m.MicrobatchesPerIteration), "methods", i, "microbatches_per_iteration")
	}
	known := SyncFamilies()
	if !slices.Contains(known, m.Family) {
		why := "no such family"
		if slices.ContainsFunc(pipeline.Families(), func(f pipeline.Family) bool { return f.Name == m.Family }) {
			why = flushProblem(m.Family, 4, 4).Error()
		}
		return v.fail(fmt.Sprintf("sync cannot use schedule family %q: %s (sync takes %s)", m.Family, why, strings.Join(known, ", ")),
			"methods", i, "family")
	}
	for _, st := range stages {
		n := m.perIteration(st)
		if err := flushProblem(m.Family, st, n); err != nil {
			key := "family"
			if m.MicrobatchesPerIteration > 0 {
				key = "microbatches_per_iteration"
			}
			return v.fail(fmt.Sprintf("S = %d with %d microbatches per iteration: %v", st, n, err), "methods", i, key)
		}
	}
	return nil
}

// perIteration is sync's microbatch count per iteration for st stages.
func (m MethodSpec) perIteration(st int) int {
	if m.MicrobatchesPerIteration > 0 {
		return m.MicrobatchesPerIteration
	}
	return st
}

func (m *MethodSpec) validate(v validator, i int) error {
	if !slices.Contains(KnownMethods, m.Name) {
		return v.fail(fmt.Sprintf("unknown method %q (known: %s)", m.Name, strings.Join(KnownMethods, ", ")), "methods", i, "name")
	}
	g := m.Steps
	switch {
	case len(g.Pow2) > 0 && len(g.Values) > 0:
		return v.fail("set values or pow2, not both", "methods", i, "steps")
	case len(g.Pow2) > 0 && len(g.Pow2) != 2:
		return v.fail(fmt.Sprintf("pow2 needs two exponents [from, to], got %d", len(g.Pow2)), "methods", i, "steps", "pow2")
	case len(g.Pow2) == 2 && g.Pow2[0] > g.Pow2[1]:
		return v.fail(fmt.Sprintf("empty grid: 2^%d..2^%d", g.Pow2[0], g.Pow2[1]), "methods", i, "steps", "pow2")
	case len(g.Pow2) == 2 && (g.Pow2[0] < -60 || g.Pow2[1] > 60):
		return v.fail("exponents must lie in -60..60", "methods", i, "steps", "pow2")
	case len(g.Pow2) == 0 && len(g.Values) == 0:
		return v.fail("empty step-size grid", "methods", i, "steps")
	}
	for j, x := range g.Values {
		if !(x > 0) || math.IsInf(x, 0) {
			return v.fail(fmt.Sprintf("step size %v is not positive", x), "methods", i, "steps", "values", j)
		}
	}
	if m.Name == "rpd" {
		if len(m.Deltas) == 0 {
			m.Deltas = []Delta{{Paper: true}}
		}
		for j, d := range m.Deltas {
			if !d.Paper && d.Value < 0 {
				return v.fail(fmt.Sprintf("delay bound %d is negative", d.Value), "methods", i, "deltas", j)
			}
		}
	} else if len(m.Deltas) > 0 {
		return v.fail("only rpd takes delay bounds", "methods", i, "deltas")
	}
	if m.Name == "localsgd" {
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
	if m.Name != "sync" {
		if m.Family != "" {
			return v.fail("only sync takes a schedule family", "methods", i, "family")
		}
		if m.MicrobatchesPerIteration != 0 {
			return v.fail("only sync takes microbatches_per_iteration", "methods", i, "microbatches_per_iteration")
		}
	}
	return nil
}

func (c *CostSpec) validate(v validator) error {
	if c.Model == "unit" {
		if c.Preset != "" || c.GPU != "" || c.Link != "" || c.Microbatch != 0 || c.Sequence != 0 || c.FlashAttention {
			return v.fail("preset, gpu, link, microbatch, sequence and flash_attention need model: gpu", "cost")
		}
		return nil
	}
	def := func(p *string, d string) {
		if *p == "" {
			*p = d
		}
	}
	def(&c.Preset, DefaultGPU.Preset)
	def(&c.GPU, DefaultGPU.GPU)
	def(&c.Link, DefaultGPU.Link)
	if c.Microbatch == 0 {
		c.Microbatch = DefaultGPU.Microbatch
	}
	if c.Sequence == 0 {
		c.Sequence = DefaultGPU.Sequence
	}
	if _, err := cost.LookupNetwork(c.Preset); err != nil {
		return v.fail(err.Error(), "cost", "preset")
	}
	if _, err := cost.LookupGPU(c.GPU); err != nil {
		return v.fail(err.Error(), "cost", "gpu")
	}
	if _, err := cost.LookupLink(c.Link); err != nil {
		return v.fail(err.Error(), "cost", "link")
	}
	if c.Microbatch < 1 || c.Sequence < 1 {
		return v.fail("microbatch and sequence must be at least 1", "cost")
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
