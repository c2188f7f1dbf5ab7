package experiments

import (
	"fmt"
	"strings"
)

// Figure is a preset: the sweeps that reproduce one figure of the papers
// (docs/reference.md §1, §2), in a full and a quick size. Its specs are
// YAML files shipped in the package (figures/NAME.yaml and
// figures/quick/NAME.yaml, Presets), which a user can copy and sweep.
type Figure struct {
	// Name is the figure's name on the command line, its directory and
	// its preset files' name.
	Name string
	// Summary says what the figure shows; its preset files' header
	// repeats it.
	Summary string
	// Seconds is the figure's CPU time, roughly, at the quick and the full
	// size, on one core of a 2-core machine (docs/benchmarks.md). A pooled
	// reproduce starts the longest runs first, by each run's own estimate;
	// of two runs estimated alike, the heavier figure's goes first.
	Seconds [2]float64
}

// Load returns the figure's rough CPU seconds at the quick or full size.
func (f Figure) Load(quick bool) float64 {
	if quick {
		return f.Seconds[0]
	}
	return f.Seconds[1]
}

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

// Runs expands the figure's specs (Presets, validated as they are read)
// into one list of runs with distinct ids.
func (f Figure) Runs(quick bool) ([]Run, error) {
	specs, err := f.Presets(quick)
	if err != nil {
		return nil, err
	}
	runs, err := ExpandAll(specs)
	if err != nil {
		return nil, fmt.Errorf("experiments: figure %s: %w", f.Name, err)
	}
	return runs, nil
}

// The figures without a file of their own (figure_*.go holds the others,
// with their summaries' numbers and their plots' code).
var (
	figureDelays = Figure{
		Name:    "delays",
		Summary: "PipeDream's delays k - j_k^(s) against the stage count S, with S² - S/2",
		Seconds: [2]float64{0.2, 0.5},
	}
	figurePDvsRPD = Figure{
		Name:    "pd-vs-rpd",
		Summary: "PipeDream and randomized PipeDream (RPD) at several delay bounds δ on the random quadratic, loss against block updates",
		Seconds: [2]float64{0.6, 9},
	}
	// figurePDvsLocalSGDBudget is pd-vs-localsgd at the scaling figure's
	// budget of 3180 steps, each method with the microbatches that fill it
	// (docs/reference.md §1.6); figurePDvsLocalSGD is the paper's form.
	figurePDvsLocalSGDBudget = Figure{
		Name:    "pd-vs-localsgd-budget",
		Summary: "PipeDream and LocalSGD (H = 2, 5, 30) on the tridiagonal quadratic with S = 16 at a budget of 3180 steps, loss against simulated time",
		Seconds: [2]float64{1.5, 12.5},
	}
	figureScaling = Figure{
		Name: "scaling",
		Summary: "final loss against S at a fixed time budget for PipeDream, RPD and LocalSGD on logistic regression, " +
			"best step size per method and S",
		// Measured: 3.1 and 230 CPU-s of runs at three seeds, RPD at S =
		// 128 and 64 (30 runs each) 121 and 38 of the full size's; five
		// seeds scale the full size to about 383 (not yet measured).
		Seconds: [2]float64{3.5, 383},
	}
	// figureLM is the LM on the generated Markov corpus, whose entropy
	// floor is known (docs/charlm.md); it was named lm before the shipped
	// text took that name (figureLMText), and its spec keeps the name lm
	// so that its tables are unchanged.
	figureLM = Figure{
		Name:    "lm-markov",
		Summary: "PipeDream and LocalSGD training the character-level transformer on the Markov corpus (a known floor), loss against simulated time",
		// Measured quick: 24.6 CPU-s; full: 99.4 CPU-s for its 12 runs
		// (its preset swept alone, --jobs 2, load average about 6,
		// docs/figures.md, "Cost").
		Seconds: [2]float64{25, 100},
	}
	figureSchedules = Figure{
		Name:    "schedules",
		Summary: "GPipe, 1F1B, Chimera, Hanayo and zero-bubble schedules at the formula, lockstep and simulated levels, with Gantt charts",
		Seconds: [2]float64{1.5, 5},
	}
)
