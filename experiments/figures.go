package experiments

import (
	"fmt"
	"strings"
)

// Figure is a preset: the sweeps that reproduce one figure of the papers
// (docs/reference.md §1, §2), in a full and a quick size.
type Figure struct {
	// Name is the figure's name on the command line and its directory.
	Name string
	// Summary says what the figure shows.
	Summary string
	// Specs returns the figure's sweeps: the paper's sizes, or with quick
	// sizes small enough that every quick figure together runs in minutes
	// on two cores. Convergence figures add the same sweep under the GPU
	// timing model.
	Specs func(quick bool) []*Spec
	// Seconds is the figure's CPU time, roughly, at the quick and the full
	// size, on one core of a 2-core machine (docs/benchmarks.md). A pooled
	// reproduce starts the longest runs first, by each run's own estimate;
	// of two runs estimated alike, the heavier figure's goes first.
	Seconds [2]float64
}

// Load returns the figure's rough CPU seconds at the quick or full size.
func (f Figure) Load(quick bool) float64 { return pick(quick, f.Seconds[0], f.Seconds[1]) }

// Figures returns the presets in the order reproduce runs them.
func Figures() []Figure {
	return []Figure{figureDelays, figurePDvsRPD, figurePDvsLocalSGD, figurePDvsLocalSGDBudget, figureScaling, figureRegime, figureLMText, figureLM, figureSchedules, figureRemedies, figureDelayProfiles, figureStalenessLaw, figureOptimizersUnderDelay}
}

// LookupFigure returns the preset named name.
func LookupFigure(name string) (Figure, error) {
	var names []string
	for _, f := range Figures() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Figure{}, fmt.Errorf("experiments: unknown figure %q (known: %s)", name, strings.Join(names, ", "))
}

// Presets returns the figure's specs as it runs them: Specs with the
// figures' defaults filled in (a convergence spec that does not set
// ExtendGrid gets DefaultFigureExtendGrid), so that the same specs written
// out (EncodeSpecs, "pipelab reproduce FIGURE --print-spec") and swept
// give the figure's runs.
func (f Figure) Presets(quick bool) []*Spec {
	specs := f.Specs(quick)
	for _, s := range specs {
		if s.ExtendGrid == nil && (s.Measure == "" || s.Measure == Convergence) {
			// Figures bracket their selections (spec_extend.go).
			n := DefaultFigureExtendGrid
			s.ExtendGrid = &n
		}
	}
	return specs
}

// Runs validates the figure's specs (Presets) and expands them into one
// list of runs with distinct ids.
func (f Figure) Runs(quick bool) ([]Run, error) {
	specs := f.Presets(quick)
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("experiments: figure %s, spec %d: %w", f.Name, i, err)
		}
	}
	runs, err := ExpandAll(specs)
	if err != nil {
		return nil, fmt.Errorf("experiments: figure %s: %w", f.Name, err)
	}
	return runs, nil
}

// pick picks the quick or the full value.
func pick[T any](quick bool, small, full T) T {
	if quick {
		return small
	}
	return full
}

// withGPU returns s and a copy of s timed by the GPU model with the given
// budgets (seconds) in place of the unit-time budgets and the stage counts
// the timed model can be cut into.
func withGPU(s *Spec, budget []float64, stages []int) []*Spec {
	g := *s
	g.Cost = DefaultGPU
	if budget != nil {
		g.Budget = budget
	}
	if stages != nil {
		g.Stages = stages
	}
	return []*Spec{s, &g}
}

var figureDelays = Figure{
	Name:    "delays",
	Summary: "PipeDream's delays k - j_k^(s) against the stage count S, with S² - S/2",
	Specs: func(quick bool) []*Spec {
		return []*Spec{{Name: "delays", Measure: DelayStats, TotalMicrobatchesPerStage: 10,
			Stages: pick(quick, []int{2, 4, 8, 16, 32}, []int{2, 4, 8, 16, 32, 64})}}
	},
	Seconds: [2]float64{0.2, 0.5},
}

var figurePDvsRPD = Figure{
	Name:    "pd-vs-rpd",
	Summary: "PipeDream and randomized PipeDream (RPD) at several delay bounds δ on the random quadratic, loss against block updates",
	Specs: func(quick bool) []*Spec {
		s := &Spec{Name: "pd-vs-rpd", Seed: 1, Select: PaperSelection, Objectives: []string{"quadratic"},
			N: pick(quick, 500, 2000), D: pick(quick, 128, 512), Batch: pick(quick, 25, 100),
			Stages: []int{8}, TotalMicrobatches: []int{pick(quick, 200, 400)},
			Methods: []MethodSpec{
				{Name: "pipedream", Steps: Grid{Pow2: []int{pick(quick, -6, -8), 0}}},
				{Name: "rpd", Steps: Grid{Pow2: []int{pick(quick, -6, -8), 0}},
					Deltas: pick(quick, []Delta{{Value: 8}, {Value: 60}, {Value: 420}},
						[]Delta{{Value: 8}, {Value: 30}, {Value: 60}, {Value: 180}, {Value: 420}})},
			}}
		// Block updates do not depend on timing, so this figure has no GPU
		// variant: RPD has no timeline to price.
		return []*Spec{s}
	},
	Seconds: [2]float64{0.6, 9},
}

// figurePDvsLocalSGDBudget is pd-vs-localsgd at the scaling figure's
// budget of 3180 steps, each method with the microbatches that fill it
// (docs/reference.md §1.6); figurePDvsLocalSGD is the paper's form.
var figurePDvsLocalSGDBudget = Figure{
	Name:    "pd-vs-localsgd-budget",
	Summary: "PipeDream and LocalSGD (H = 2, 5, 30) on the tridiagonal quadratic with S = 16 at a budget of 3180 steps, loss against simulated time",
	Specs: func(quick bool) []*Spec {
		s := &Spec{Name: "pd-vs-localsgd-budget", Seed: 1, Objectives: []string{"tridiagonal"},
			N: pick(quick, 300, 600), D: pick(quick, 128, 512), Batch: 5,
			Stages: []int{16}, Budget: []float64{pick(quick, 1000.0, 3180)},
			Methods: []MethodSpec{
				{Name: "pipedream", Steps: Grid{Pow2: []int{pick(quick, -7, -9), -2}}},
				{Name: "localsgd", LocalSteps: []int{2, 5, 30}, Steps: Grid{Pow2: []int{pick(quick, -7, -9), -2}}},
			}}
		// GPU budgets: PipeDream's matched N at the unit budget (485 and
		// 1575) takes 6.3 s and 20.2 s as gpt-1.3b stages on A100s.
		return withGPU(s, []float64{pick(quick, 6.3, 20.2)}, nil)
	},
	Seconds: [2]float64{1.5, 12.5},
}

var figureScaling = Figure{
	Name: "scaling",
	Summary: "final loss against S at a fixed time budget for PipeDream, RPD and LocalSGD on logistic regression, " +
		"best step size per method and S",
	Specs: func(quick bool) []*Spec {
		// Three seeds in the full size so the figure shows the spread the
		// conclusion rests on; the quick size keeps one, to stay fast.
		s := &Spec{Name: "scaling", Seed: 1, Select: PaperSelection, Seeds: pick(quick, 1, 3), Objectives: []string{"logistic"},
			N: 600, D: pick(quick, 128, 512), Batch: 10,
			Stages: pick(quick, []int{2, 4, 8, 16, 32}, []int{2, 4, 8, 16, 32, 64, 128}),
			Budget: []float64{pick(quick, 800.0, 3180)},
			Methods: []MethodSpec{
				{Name: "pipedream", Steps: Grid{Pow2: pick(quick, []int{-10, -3}, []int{-12, -3})}},
				{Name: "rpd", Steps: Grid{Pow2: pick(quick, []int{-10, -3}, []int{-12, -3})}, Deltas: []Delta{{Paper: true}}},
				{Name: "localsgd", LocalSteps: []int{5}, Steps: Grid{Pow2: pick(quick, []int{-6, 2}, []int{-8, 2})}},
			}}
		// gpt-1.3b has 26 layers to cut into stages, so the GPU variant
		// stops at S = 16. Its budget is what PipeDream's matched N at the
		// unit budget takes with S = 16 (385 in 5.0 s, 1575 in 20.2 s);
		// fewer stages fit fewer microbatches in it (S = 2: 399
		// microbatches take 25.4 s).
		return withGPU(s, []float64{pick(quick, 5.0, 20.2)}, []int{2, 4, 8, 16})
	},
	// Measured: 3.1 and 230 CPU-s of runs, RPD at S = 128 and 64 (30 runs
	// each) 121 and 38 of the full size's.
	Seconds: [2]float64{3.5, 230},
}

// figureLM is the LM on the generated Markov corpus, whose entropy floor is
// known (docs/charlm.md); it was named lm before the shipped text took
// that name (figureLMText), and its spec keeps the name lm so that its
// tables are unchanged.
var figureLM = Figure{
	Name:    "lm-markov",
	Summary: "PipeDream and LocalSGD training the character-level transformer on the Markov corpus (a known floor), loss against simulated time",
	Specs: func(quick bool) []*Spec {
		// One gradient of the model costs about 0.1 s of CPU at batch 16
		// (charlm's BenchmarkGradient), so the quick size is small.
		s := &Spec{Name: "lm", Seed: 1, Objectives: []string{"charlm"}, Corpus: "markov",
			N: pick(quick, 1<<14, 1<<16), Batch: pick(quick, 8, 16),
			Stages: []int{4}, Budget: []float64{pick(quick, 100.0, 600)}, LogEvery: pick(quick, 20, 0),
			LogPoints: pick(quick, 0, 30), // as the lm figure's: records were most of a run
			Methods: []MethodSpec{
				{Name: "pipedream", Steps: Grid{Values: []float64{0.0625}}},
				{Name: "localsgd", LocalSteps: pick(quick, []int{1, 4}, []int{1, 2, 4, 8, 16}),
					Steps: Grid{Values: []float64{0.0625}}},
			}}
		// GPU budgets: PipeDream's matched N at the unit budget (47 and
		// 297) takes 1.8 s and 10.7 s as gpt-1.3b stages on A100s.
		return withGPU(s, []float64{pick(quick, 1.8, 10.7)}, nil)
	},
	// Measured quick: 24.6 CPU-s; full: 12 runs of about 77 CPU-s, as
	// the lm figure's runs of the same model, batch and budget measure.
	Seconds: [2]float64{25, 900},
}

var figureSchedules = Figure{
	Name:    "schedules",
	Summary: "GPipe, 1F1B, Chimera, Hanayo and zero-bubble schedules at the formula, lockstep and simulated levels, with Gantt charts",
	Specs: func(quick bool) []*Spec {
		s := &Spec{Name: "schedules", Measure: Schedules,
			Families:     []string{"gpipe", "1f1b", "chimera", "hanayo", "zb-h1", "zb-h2", "zb-v"},
			Ranks:        []int{4},
			Microbatches: pick(quick, []int{8}, []int{4, 8, 16})}
		g := *s
		g.Cost = DefaultGPU
		p := g
		p.Cost.Link = "pcie"
		return []*Spec{s, &g, &p}
	},
	Seconds: [2]float64{1.5, 5},
}
