package experiments

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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
	Name:    "staleness-law",
	Summary: lawSummary(),
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
	// Measured (docs/figures.md, staleness-law): quick 15.5 CPU-s; full,
	// run beside optimizers-under-delay at load 5–15, 716 CPU-s for both,
	// 23–30 % of it this figure's by its runs' wall seconds (its LM's 72
	// runs nearly all of it).
	Seconds: [2]float64{16, 200},
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
	// logPoints is the records per run (0: 10): the final loss is what
	// is compared, the curves are not drawn.
	logPoints int
}

// lawLMStages and lawLMMicrobatches are the S and K of the law figure's
// LM, quick and full: ShakespeareLM's model on the shipped text (one
// block per middle stage, so it deepens with S), trained by plain SGD as
// the law's other objectives are, steps 2^-5..2^-3 (quick 2^-3..2^-1,
// where sync chose 2^-2 and 2^-1 at 200 microbatches), placed by a
// one-seed pilot over 2^-5..2^0 at K = 600 where sync chose 2^-4 at every
// S and PipeDream 2^-4 up to S = 6 and 2^-5, the pilot's bottom, at S = 8
// (docs/figures.md, staleness-law).
// S = 16 is not run: 14 blocks cost about 7 times S = 4's per
// microbatch, and plain SGD at K = 1000 left that model at 3.15 nats,
// near the unigram entropy.
var (
	lawLMStages       = [2][]int{{3, 4}, {3, 4, 6, 8}} // quick, full
	lawLMMicrobatches = [2]int{100, 600}
)

// lawSummary is the staleness-law figure's summary, with the LM's size
// at each S and the characters each of its runs sees (full size).
func lawSummary() string {
	lm := ShakespeareLM()
	var params []string
	for _, s := range lawLMStages[1] {
		params = append(params, groupDigits(lm.Parameters(s)))
	}
	return fmt.Sprintf("PipeDream's final loss minus delay-free SGD's at fixed K against S (quadratic, logistic, and the LM on the shipped text: "+
		"E %d, T %d, %s parameters at S = %s, K = %d microbatches, %s characters seen per run), each at its tuned step, "+
		"with the fitted exponent against the paper's S⁴/K",
		lm.Embed, lm.SeqLen, strings.Join(params, "/"), joinInts(lawLMStages[1], ", "), lawLMMicrobatches[1],
		groupDigits(lm.Characters(lawLMMicrobatches[1])))
}

func lawObjectives(quick bool) []lawObjective {
	size := pick(quick, 0, 1)
	var lm Spec
	ShakespeareLM().Apply(&lm)
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
		// The LM (lawLMStages; charlm needs S ≥ 3). The quick size's 100
		// microbatches leave it undertrained: it checks the pipeline.
		// Its records cost 16 forward passes each (8 training, 8
		// validation batches): two suffice, the last is the one compared.
		{label: "lm", spec: lm, k: lawLMMicrobatches[size], stages: lawLMStages[size],
			steps: pick(quick, [2]int{-3, -1}, [2]int{-5, -3}), seeds: pick(quick, 2, 3), logPoints: 2},
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
	s.LogPoints = cmp.Or(o.logPoints, 10)
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
