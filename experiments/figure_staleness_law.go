package experiments

import (
	"cmp"
	"slices"
)

// figureStalenessLaw measures the paper's central claim (docs/reference.md
// §1): the stale-read term of PipeDream's bound is of order γ²S⁴, so the
// loss PipeDream gives up against delay-free SGD grows like S⁴/K once the
// step γ is tuned. Each objective runs PipeDream and synchronous SGD of
// one microbatch per update (the same gradients in the same order, K
// updates each, no delay) at fixed K over S, each at its own best step of
// a wide grid; the gap is fitted as a·S^b (results.Fits) against b = 4. A
// second sweep holds S and varies K, against K^−1 (docs/figures.md,
// staleness-law).
var figureStalenessLaw = Figure{
	Name: "staleness-law",
	Summary: "PipeDream's final loss minus delay-free SGD's at fixed K against S (quadratic, logistic, LM), each at its tuned step, " +
		"with the fitted exponent against the paper's S⁴/K",
	Specs: func(quick bool) []*Spec {
		var out []*Spec
		for _, o := range lawObjectives(quick) {
			out = append(out, lawSpec(o, quick))
			if o.kStages > 0 {
				out = append(out, lawKSpec(o, quick))
			}
		}
		return out
	},
	// Measured (docs/figures.md, staleness-law): quick 22 CPU-s; full,
	// run beside optimizers-under-delay on a loaded machine, 362 CPU-s
	// for both, 40 % of it this figure's by its runs' wall seconds.
	Seconds: [2]float64{22, 150},
}

// stalenessLM is the character LM of the staleness-law and
// optimizers-under-delay figures: embedding width 16, sequences of 16
// characters, 4 sequences a batch, the shipped text (one GPT block on each
// middle stage, so the model deepens with S). It is the one place the two
// figures' LM shape is set, so that a larger LM can be swapped in.
func stalenessLM() Spec {
	return Spec{Objectives: []string{"charlm"}, Batch: 4, Embed: 16, SeqLen: 16}
}

// lawObjective is one problem of the staleness-law figure: its spec
// fields, its K, stage counts and step grid (log2 bounds), and the S at
// which K is varied (0: not varied).
type lawObjective struct {
	label   string
	spec    Spec
	k       int
	stages  []int
	steps   [2]int
	kStages int
	ks      []int
	seeds   int // 0: the figure's (2 quick, 4 full)
}

func lawObjectives(quick bool) []lawObjective {
	lm := stalenessLM()
	return []lawObjective{
		// The random quadratic of pd-vs-rpd at its quick size, with
		// additive gradient noise σ = 0.05 (without it y = Xw* makes the
		// noise vanish at the optimum, both methods converge linearly to
		// rounding and the gap is no power of S).
		{label: "quadratic", spec: Spec{Objectives: []string{"quadratic"}, N: 500, D: 128, Batch: 25, Noise: []float64{0.05}},
			k: 1000, stages: pick(quick, []int{2, 4, 8, 16}, []int{2, 4, 8, 16, 32}),
			steps: [2]int{-14, -2}, kStages: 16, ks: pick(quick, []int{250, 500, 1000}, []int{250, 500, 1000, 2000, 4000})},
		// Logistic regression with additive gradient noise σ = 0.5 (the
		// scaling figure's objective at d = 128).
		{label: "logistic", spec: Spec{Objectives: []string{"logistic"}, N: 600, D: 128, Batch: 10},
			k: 1000, stages: pick(quick, []int{2, 4, 8, 16}, []int{2, 4, 8, 16, 32}),
			steps: [2]int{-14, -2}, kStages: 16, ks: pick(quick, []int{250, 500, 1000}, []int{250, 500, 1000, 2000, 4000})},
		// charlm needs S ≥ 3; at S = 16 its K must stay well above
		// PipeDream's largest delay, 248.
		{label: "lm", spec: lm, k: pick(quick, 400, 1000), stages: pick(quick, []int{3, 4, 8}, []int{3, 4, 8, 16}),
			steps: [2]int{-7, pick(quick, 1, 0)}, seeds: pick(quick, 2, 3)},
	}
}

// lawMethods are PipeDream and its delay-free twin: sync with one
// microbatch per iteration, K updates of one microbatch's gradient each,
// on the same step grid.
func lawMethods(o lawObjective) []MethodSpec {
	g := Grid{Pow2: []int{o.steps[0], o.steps[1]}}
	return []MethodSpec{{Name: "pipedream", Steps: g}, {Name: "sync", Microbatches: 1, Steps: g}}
}

func lawSpec(o lawObjective, quick bool) *Spec {
	s := o.spec
	s.Name = "staleness-law-" + o.label
	s.Seed, s.Seeds = 1, cmp.Or(o.seeds, pick(quick, 2, 4))
	s.Stages, s.TotalMicrobatches = o.stages, []int{o.k}
	s.LogPoints = 10 // the final loss is what is compared; the curves are not drawn
	s.Methods = lawMethods(o)
	return &s
}

// lawKSpec varies K at one S: the same experiment as lawSpec's, at the
// K other than its own (whose runs lawSpec has; a run's id does not name
// its experiment, so the two specs must not share a run).
func lawKSpec(o lawObjective, quick bool) *Spec {
	s := lawSpec(o, quick)
	s.Stages = []int{o.kStages}
	s.TotalMicrobatches = slices.DeleteFunc(slices.Clone(o.ks), func(k int) bool { return k == o.k })
	return s
}
